/* options: -x errtags */
#pragma D binding "1.2.3.4" x
BEGIN { exit(0); }
