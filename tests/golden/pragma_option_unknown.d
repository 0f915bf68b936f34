/* options: -x errtags */
#pragma D option nosuchoption
BEGIN { exit(0); }
