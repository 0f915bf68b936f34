/* options: -q */
#pragma D depends_on provider dtrace
BEGIN { printf("dtrace is here\n"); exit(0); }
