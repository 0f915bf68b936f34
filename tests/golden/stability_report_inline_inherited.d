/* options: -q -v */
/* An inline without #pragma D attributes has the minimum attributes of its value. */
int secret;
#pragma D attributes Private/Evolving/Common secret

inline int lowered = secret + 1;

BEGIN
{
	trace(lowered);
	exit(0);
}
