/* options: -x errtags */
#pragma D option cpppath=/usr/bin/cpp
BEGIN { exit(0); }
