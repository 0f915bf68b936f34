/* args: PID */
/*
 * python_calls.d - count the Python functions a running CPython process
 * calls, by file, function and line.
 *
 * Shows: USDT probes of a language runtime (python$1:::function__entry,
 * where arg0 is the file name, arg1 the function name and arg2 the line
 * number), copyinstr() of both strings, basename(), a three-key
 * aggregation, trunc() to the top 25 in END.
 * Run:   dtrace -s python_calls.d PID    (PID of a python3 process; Ctrl-C)
 */

#pragma D option quiet
#pragma D option aggsortrev

python$1:::function__entry
{
	@calls[basename(copyinstr(arg0)), copyinstr(arg1), arg2] = count();
}

END
{
	trunc(@calls, 25);
	printf("%-28s %-32s %6s %10s\n", "FILE", "FUNCTION", "LINE", "CALLS");
	printa("%-28s %-32s %6d %@10d\n", @calls);
}
