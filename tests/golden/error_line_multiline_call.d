/* options: -xerrtags */
/* A call written over several lines reports its prototype mismatch on the line of its ). */
BEGIN
{
	n = strlen("first",
	    "second");
}
