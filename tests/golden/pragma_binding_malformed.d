/* options: -x errtags */
#pragma D binding x "1.0"
BEGIN { exit(0); }
