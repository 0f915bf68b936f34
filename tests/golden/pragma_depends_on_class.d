/* options: -x errtags */
#pragma D depends_on thing foo
BEGIN { exit(0); }
