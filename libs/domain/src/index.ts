export * from './events';
export * from './errors';
