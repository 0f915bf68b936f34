/* options: -xerrtags */
/* A constant ends at the first letter that is not a suffix: 12a is 12, then a. */
BEGIN
{
	x = 12a;
}
