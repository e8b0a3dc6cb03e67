// The crash-scenario child process entry; filled in with the conformance suite.
export {};
