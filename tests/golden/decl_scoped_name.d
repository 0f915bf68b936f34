/* options: -xerrtags */
int vmlinux`value;
BEGIN { exit(0); }
