// Configuration shared by the apps (the server and the admin CLI): what each must read the same way.
export * from './sizes';
export * from './storage';
export * from './scoring';
