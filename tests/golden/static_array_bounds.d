/* options: -q -x errtags */
int a[5];
BEGIN { a[5] = 1; exit(0); }
