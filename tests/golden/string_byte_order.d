/* options: -q */
BEGIN
{
	printf("%x %x\n", htons(0x1234), ntohs(0x1234));
	printf("%x %x\n", htonl(0x12345678), ntohl(0x12345678));
	printf("%x %x\n", htonll(0x0102030405060708), ntohll(0x0102030405060708));
	exit(0);
}
