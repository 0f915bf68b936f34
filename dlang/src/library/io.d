/*
 * io.d: the b_flags bits of bufinfo_t, the kernel's request flags the io provider
 * reads, and the open(2) flags of fileinfo_t's fi_oflags, with x86_64's values.
 */

inline int B_BUSY = 0x1;
inline int B_DONE = 0x2;
inline int B_ERROR = 0x4;
inline int B_PAGEIO = 0x10;
inline int B_PHYS = 0x20;
inline int B_READ = 0x40;
inline int B_WRITE = 0x100;
inline int B_ASYNC = 0x400;

inline int REQ_WRITE = 0x1;
inline int REQ_SYNC = 0x800;

inline int O_ACCMODE = 03;
inline int O_RDONLY = 0;
inline int O_WRONLY = 01;
inline int O_RDWR = 02;
inline int O_CREAT = 0100;
inline int O_EXCL = 0200;
inline int O_NOCTTY = 0400;
inline int O_TRUNC = 01000;
inline int O_APPEND = 02000;
inline int O_NONBLOCK = 04000;
inline int O_NDELAY = 04000;
inline int O_DSYNC = 010000;
inline int O_ASYNC = 020000;
inline int O_DIRECTORY = 0200000;
inline int O_NOFOLLOW = 0400000;
inline int O_CLOEXEC = 02000000;
inline int O_SYNC = 04010000;
inline int O_FSYNC = 04010000;
inline int O_RSYNC = 04010000;

/*
 * The I/O descriptions of DTrace's io.d, translated from the kernel's block I/O
 * structures: a struct bio (io:::start) or a struct request (io:::done), the block
 * device it goes to, and the file (always none on Linux, as in Oracle's DTrace: the
 * block layer does not know it). A device's dev_statname is the kernel's name for it
 * (/proc/diskstats's: "vda1", "nvme0n1p2"); dev_name is its driver's.
 */

typedef char *caddr_t;

typedef struct bufinfo {
	int b_flags;			/* B_READ or B_WRITE, B_ASYNC, B_PHYS */
	size_t b_bcount;		/* bytes */
	caddr_t b_addr;			/* buffer address */
	uint64_t b_lblkno;		/* logical block */
	uint64_t b_blkno;		/* block on the device, in 512-byte sectors */
	size_t b_resid;			/* bytes not transferred */
	size_t b_bufsize;		/* buffer size */
	caddr_t b_iodone;		/* completion routine */
	int b_error;			/* error */
	dev_t b_edev;			/* device */
} bufinfo_t;

typedef struct devinfo {
	int dev_major;			/* major number */
	int dev_minor;			/* minor number */
	int dev_instance;		/* instance number */
	string dev_name;		/* driver name */
	string dev_statname;		/* device name */
	string dev_pathname;		/* device path */
} devinfo_t;

typedef struct fileinfo {
	string fi_name;			/* base name */
	string fi_dirname;		/* directory */
	string fi_pathname;		/* full path */
	int64_t fi_offset;		/* offset in the file */
	string fi_fs;			/* file system type */
	string fi_mount;		/* mount point */
	int fi_oflags;			/* open(2) flags */
} fileinfo_t;

translator bufinfo_t < struct bio *B > {
	b_flags = ((B->bi_opf & REQ_WRITE) != 0 ? B_WRITE : B_READ) |
	    ((B->bi_opf & REQ_SYNC) != 0 ? 0 : B_ASYNC) | B_PHYS;
	b_bcount = B->bi_iter.bi_size;
	b_addr = 0;
	b_lblkno = B->bi_iter.bi_sector;
	b_blkno = B->bi_iter.bi_sector;
	b_resid = 0;
	b_bufsize = B->bi_iter.bi_size;
	b_iodone = (caddr_t)B->bi_end_io;
	b_error = B->bi_status;
	b_edev = B->bi_bdev == NULL ? 0 : B->bi_bdev->bd_dev;
};

translator bufinfo_t < struct request *R > {
	b_flags = ((R->cmd_flags & REQ_WRITE) != 0 ? B_WRITE : B_READ) |
	    ((R->cmd_flags & REQ_SYNC) != 0 ? 0 : B_ASYNC) | B_PHYS;
	b_bcount = R->__data_len;
	b_addr = 0;
	b_lblkno = R->__sector;
	b_blkno = R->__sector;
	b_resid = 0;
	b_bufsize = R->__data_len;
	b_iodone = (caddr_t)R->end_io;
	b_error = 0;
	b_edev = R->part != NULL ? R->part->bd_dev : R->q->disk->part0->bd_dev;
};

translator devinfo_t < struct block_device *D > {
	dev_major = D == NULL ? 0 : getmajor(D->bd_dev);
	dev_minor = D == NULL ? 0 : getminor(D->bd_dev);
	dev_instance = 0;
	dev_name = D == NULL || D->bd_disk->part0->bd_device.parent == NULL ||
	    D->bd_disk->part0->bd_device.parent->driver == NULL ? "<unknown>" :
	    stringof(D->bd_disk->part0->bd_device.parent->driver->name);
	dev_statname = D == NULL ? "<unknown>" : stringof(D->bd_device.kobj.name);
	dev_pathname = D == NULL ? "<unknown>" :
	    strjoin("/dev/", stringof(D->bd_device.kobj.name));
};

translator devinfo_t < struct bio *B > {
	dev_major = xlate <devinfo_t> (B->bi_bdev).dev_major;
	dev_minor = xlate <devinfo_t> (B->bi_bdev).dev_minor;
	dev_instance = 0;
	dev_name = xlate <devinfo_t> (B->bi_bdev).dev_name;
	dev_statname = xlate <devinfo_t> (B->bi_bdev).dev_statname;
	dev_pathname = xlate <devinfo_t> (B->bi_bdev).dev_pathname;
};

translator devinfo_t < struct request *R > {
	dev_major = xlate <devinfo_t> (R->part != NULL ? R->part : R->q->disk->part0).dev_major;
	dev_minor = xlate <devinfo_t> (R->part != NULL ? R->part : R->q->disk->part0).dev_minor;
	dev_instance = 0;
	dev_name = xlate <devinfo_t> (R->part != NULL ? R->part : R->q->disk->part0).dev_name;
	dev_statname = xlate <devinfo_t> (R->part != NULL ? R->part : R->q->disk->part0).dev_statname;
	dev_pathname = xlate <devinfo_t> (R->part != NULL ? R->part : R->q->disk->part0).dev_pathname;
};

translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" : stringof(F->f_path.dentry->d_name.name);
	fi_dirname = F == NULL ? "<none>" : dirname(d_path(&F->f_path));
	fi_pathname = F == NULL ? "<none>" : d_path(&F->f_path);
	fi_offset = F == NULL ? 0 : F->f_pos;
	fi_fs = F == NULL ? "<none>" : stringof(F->f_path.mnt->mnt_sb->s_type->name);
	fi_mount = F == NULL ? "<none>" : "<unknown>";
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

/* The current process's open file fd, or the none file when fd is not open. */
inline fileinfo_t fds[int fd] = xlate <fileinfo_t> (
    fd >= 0 && fd < curthread->files->fdt->max_fds ?
    curthread->files->fdt->fd[fd] : (struct file *)NULL);
