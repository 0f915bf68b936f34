/* options: -x cpu=100000 */
/*
 * A CPU that is not online is an invalid value of the cpu option: dtrace fails when
 * the option is set instead of waiting for firings that can never come.
 */
BEGIN
{
	exit(0);
}
