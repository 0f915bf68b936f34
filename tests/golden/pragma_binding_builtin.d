/* options: -x errtags */
#pragma D binding "1.0" trace
BEGIN { exit(0); }
