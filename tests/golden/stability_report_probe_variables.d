/* options: -q -v */
/* probename has the attributes of the clause's probe description: Unstable for one
   that names no provider. */
BEGIN
{
	trace(probename);
	exit(0);
}
