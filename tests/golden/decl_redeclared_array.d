/* options: -xerrtags */
/* A fixed array is a scalar of array type; redeclaring it names both array types. */
int values[5];
int values[6];
BEGIN { exit(0); }
