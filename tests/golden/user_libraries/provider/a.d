/* Skipped: this machine has no such provider. */
#pragma D depends_on provider no_such_provider
inline int PROVIDER_A = 1;
