/* options: -x errtags */
#pragma D attributes Stable/Stable/Common nosuchname
BEGIN { exit(0); }
