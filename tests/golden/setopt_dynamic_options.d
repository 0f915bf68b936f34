/* options: -q */
/*
 * setopt() changes dynamic options in buffer order: the first printa() is sorted in
 * reverse, the second by key. A name that is no option and a runtime option that is
 * fixed once tracing is active are reported as library errors, and tracing goes on.
 */
BEGIN
{
	@["b"] = sum(1);
	@["a"] = sum(2);
	@["c"] = sum(3);
	setopt("aggsortrev");
	printa("%s %@d\n", @);
	setopt("aggsortkey");
	printa("%s %@d\n", @);
	setopt("nosuch");
	setopt("bufsize", "1m");
	printf("still tracing\n");
	exit(0);
}
