/* options: -q -x errtags */
BEGIN
{
	speculate(speculation());
	copyoutstr("a", 0, 2);
}
