/* options: -q */
#pragma D option amin=Evolving/Evolving/Common
inline int b = 1;
#pragma D attributes Private/Private/Common b

BEGIN
{
	trace(b);
	exit(0);
}
