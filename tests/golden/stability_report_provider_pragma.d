/* options: -q -v */
/* #pragma D attributes ... provider changes the provider's attributes, and with them
   the attributes of the probe descriptions that name it. */
#pragma D attributes Private/Evolving/ISA provider dtrace name

dtrace:::BEGIN
{
	exit(0);
}
