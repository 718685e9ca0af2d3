export * from './events';
export * from './errors';
export * from './schema-versions';
export * from './upcasters';
