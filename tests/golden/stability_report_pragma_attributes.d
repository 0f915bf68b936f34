/* options: -q -v */
/* The statement's attributes are the minimum over what it uses: here the inline
   the program marked Private. */
inline int b = 1;
#pragma D attributes Private/Private/Common b

BEGIN
{
	trace(b);
	exit(0);
}
