export * from './events';
export * from './errors';
export * from './decider';
export * from './version';
export * from './deciders';
export * from './schema-versions';
export * from './upcasters';
export * from './webhook-events';
