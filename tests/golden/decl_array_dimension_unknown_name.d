/* options: -xerrtags */
/*
 * An array dimension is what DTrace's parser folded to an integer constant: a name it
 * does not know is no error of its own, the dimension is just not a constant.
 */
int a[nosuchname];
BEGIN { exit(0); }
