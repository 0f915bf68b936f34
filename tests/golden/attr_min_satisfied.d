/* options: -q -x amin=Evolving/Evolving/Common */
/* Evolving identifiers meet an Evolving minimum. */
BEGIN
{
	trace(htons(1));
	exit(0);
}
