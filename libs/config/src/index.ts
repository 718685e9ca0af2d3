export * from './config';
export * from './data-dir';
