/*
 * iosnoop.d - every block I/O with its device, direction, size and latency,
 * from the stable io provider.
 *
 * Shows: io:::start and io:::done with bufinfo_t (b_flags, b_bcount,
 * b_blkno, b_edev) and devinfo_t (dev_statname), an associative array keyed
 * by device and block to match each completion with its start, the issuing
 * process saved at start (done runs in interrupt context).
 * Run:   dtrace -s iosnoop.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

BEGIN
{
	printf("%-16s %7s %-8s %1s %10s %8s %8s\n", "COMM", "PID", "DEVICE",
	    "D", "BLOCK", "BYTES", "LAT(us)");
}

io:::start
{
	start_time[args[0]->b_edev, args[0]->b_blkno] = timestamp;
	start_comm[args[0]->b_edev, args[0]->b_blkno] = execname;
	start_pid[args[0]->b_edev, args[0]->b_blkno] = pid;
}

io:::done
/start_time[args[0]->b_edev, args[0]->b_blkno] != 0/
{
	this->key_dev = args[0]->b_edev;
	this->key_block = args[0]->b_blkno;
	printf("%-16s %7d %-8s %1s %10d %8d %8d\n",
	    start_comm[this->key_dev, this->key_block],
	    start_pid[this->key_dev, this->key_block], args[1]->dev_statname,
	    args[0]->b_flags & B_READ ? "R" : "W", this->key_block,
	    args[0]->b_bcount,
	    (timestamp - start_time[this->key_dev, this->key_block]) / 1000);
	start_time[this->key_dev, this->key_block] = 0;
	start_comm[this->key_dev, this->key_block] = 0;
	start_pid[this->key_dev, this->key_block] = 0;
}
