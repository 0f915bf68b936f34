/* options: -q -v */
/* #pragma D attributes on an inline replaces the attributes of what its value uses. */
int secret;
#pragma D attributes Private/Private/Common secret

inline int raised = secret + 1;
#pragma D attributes Standard/Standard/Common raised

BEGIN
{
	trace(raised);
	exit(0);
}
