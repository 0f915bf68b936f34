/* options:  */
BEGIN { trace((char)-2); }
BEGIN { trace((unsigned char)254); }
BEGIN { trace((short)-2); }
BEGIN { trace((unsigned short)65534); }
BEGIN { trace(-2); }
BEGIN { trace(4294967294u); }
BEGIN { trace(-2L); }
BEGIN { trace((unsigned long)-2); }
BEGIN { trace("abc"); }
BEGIN { trace(1); trace(2L); trace("x"); }
BEGIN { trace("this string is longer than thirty-three characters"); }
BEGIN { exit(0); }
