/* options: -x amin=Stable/Stable/Common */
/* curthread's data semantics are Private. */
BEGIN
{
	trace(curthread != 0);
	exit(0);
}
