/* options: -x errtags */
/*
 * An enumerator is not an integer constant node for DTrace's pointer rules, so even
 * one whose value is 0 cannot be compared with a string as a null pointer can.
 */
enum e { A };

BEGIN
{
	trace(A == "a");
}
