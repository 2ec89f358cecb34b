package probe

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// dataFile is one writer's file, used through raw syscalls so that the hot
// loop is exactly pwrite (+ fdatasync/fsync) with nothing in between.
type dataFile struct {
	path string
	fd   int
	sync SyncMode
}

func openDataFile(path string, size Size, mode SyncMode, prealloc Prealloc) (*dataFile, error) {
	flags := syscall.O_RDWR | syscall.O_CREAT | syscall.O_TRUNC | syscall.O_CLOEXEC
	switch mode {
	case SyncDsync:
		flags |= syscall.O_DSYNC
	case SyncDirect:
		flags |= syscall.O_DIRECT
	}
	fd, err := syscall.Open(path, flags, 0o600)
	if err != nil {
		if mode == SyncDirect && errors.Is(err, syscall.EINVAL) {
			return nil, fmt.Errorf("open %s with O_DIRECT: %v (this filesystem has no direct I/O; use --sync fdatasync)", path, err)
		}
		return nil, fmt.Errorf("create %s: %v", path, err)
	}
	f := &dataFile{path: path, fd: fd, sync: mode}
	if err := f.preallocate(size, prealloc); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *dataFile) preallocate(size Size, how Prealloc) error {
	if how == PreallocWrite {
		return f.fill(size)
	}
	if how == PreallocFallocate {
		err := syscall.Fallocate(f.fd, 0, 0, int64(size))
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EOPNOTSUPP) {
			return fmt.Errorf("preallocate %v in %s: %v", size, f.path, err)
		}
		// No fallocate on this filesystem: fall through to a sparse file,
		// as fio does.
	}
	if err := syscall.Ftruncate(f.fd, int64(size)); err != nil {
		return fmt.Errorf("size %s to %v: %v", f.path, size, err)
	}
	return nil
}

// fill writes zeros over the whole file and makes them durable.
func (f *dataFile) fill(size Size) error {
	chunk := alignedBuffer(int(min(size, MiB)))
	for off := int64(0); off < int64(size); off += int64(len(chunk)) {
		n := min(int64(len(chunk)), int64(size)-off)
		if _, err := syscall.Pwrite(f.fd, chunk[:n], off); err != nil {
			return fmt.Errorf("fill %s with %v of zeros: %v", f.path, size, err)
		}
	}
	if err := syscall.Fdatasync(f.fd); err != nil {
		return fmt.Errorf("sync %s after filling it: %v", f.path, err)
	}
	return nil
}

// write writes buf at off and makes it durable as the mode says. Short
// writes are finished and EINTR retried, so one call is one whole operation.
//
// It uses raw syscalls: the goroutine keeps its P while the device works, as
// a C thread of fio would. Through the scheduler's syscall path each blocking
// call hands the P off and takes one back, which cost about 12% of the
// fdatasync rate against fio on a virtio disk. Writers must therefore leave a
// P free for the rest of the program (see reserveProcs).
func (f *dataFile) write(buf []byte, off int64) error {
	for len(buf) > 0 {
		n, _, e := syscall.RawSyscall6(syscall.SYS_PWRITE64, uintptr(f.fd),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(off), 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return e
		case n == 0:
			return syscall.EIO
		}
		buf, off = buf[n:], off+int64(n)
	}
	var call uintptr
	switch f.sync {
	case SyncFdatasync, SyncDirect:
		call = syscall.SYS_FDATASYNC
	case SyncFsync:
		call = syscall.SYS_FSYNC
	default:
		return nil
	}
	for {
		_, _, e := syscall.RawSyscall(call, uintptr(f.fd), 0, 0)
		if e == 0 {
			return nil
		}
		if e != syscall.EINTR {
			return e
		}
	}
}

func (f *dataFile) close() error { return syscall.Close(f.fd) }

// alignedBuffer returns n bytes whose address is a multiple of 4096, as
// O_DIRECT needs.
func alignedBuffer(n int) []byte {
	const align = 4096
	b := make([]byte, n+align)
	off := int(uintptr(unsafe.Pointer(&b[0])) & (align - 1))
	if off != 0 {
		off = align - off
	}
	return b[off : off+n : off+n]
}

// reserveProcs makes sure writers blocked in raw syscalls leave at least one
// P for the ticker, signal handling and the garbage collector's helpers, and
// returns a func that restores the previous setting.
func reserveProcs(writers int) (restore func()) {
	prev := runtime.GOMAXPROCS(0)
	if prev > writers {
		return func() {}
	}
	runtime.GOMAXPROCS(writers + 1)
	return func() { runtime.GOMAXPROCS(prev) }
}
