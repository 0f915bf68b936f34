/* options: -q -v */
/* htons() is Evolving/Evolving/Common in DTrace's tables: so is the statement. */
BEGIN
{
	trace(htons(1));
	exit(0);
}
