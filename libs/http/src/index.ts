export * from './error.filter';
export * from './validation';
export * from './patterns';
export * from './params';
export * from './rate-limit';
export * from './request-id';
