/* options: -q -x aggsortkeypos=1 */
BEGIN
{
	@["b", 1] = count();
	@["a", 2] = count();
	@["c", 1] = count();
	@["a", 1] = count();
	@w["p", 9] = sum(1);
	@w["q", 1] = sum(2);
	exit(0);
}
