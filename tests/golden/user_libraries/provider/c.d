#pragma D depends_on provider dtrace
inline int PROVIDER_C = 3;
