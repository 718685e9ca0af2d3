export * from './config';
export * from './data-dir';
export * from './process-identity';
