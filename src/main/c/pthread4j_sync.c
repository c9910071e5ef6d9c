/*
 * pthread4j_sync: the sync file protocol of org.pthread4j.ipc.SyncFile, for musl C programs.
 * See pthread4j_sync.h for the interface and its errors.
 *
 * Layout (format version 1, org.pthread4j.ipc.SyncFileLayout), little-endian:
 *
 *   header (64 bytes)                     directory entry (64 bytes, CAPACITY of them)
 *    0  magic "PT4JSYNC"                   0  name, NUL-padded (32 bytes)
 *    8  version (1)                        32 state: FREE 0, READY 1, CREATING 0x40000000|pid
 *   12  data start                         36 claim stamp: low 32 bits of the claimer's start time
 *   16  total size (int64)                 40 type
 *   24  creator pid                        44 size
 *   28  capacity                           48 offset (int64)
 *   32  created, epoch ms (int64)          56 creator pid
 *   40  entry size (64)                    60 reserved, zero
 *   44  reserved, zero (20 bytes)
 *
 * Get-or-create: entries are claimed strictly in index order by a CAS of their 64-bit state
 * and stamp from FREE to CREATING (this process's pid, and its start stamp). A lookup walks the
 * entries in order: a READY entry with the name is the answer; a READY one with another name is
 * passed; the first FREE one is claimed, filled in, its block zeroed and initialized, and only
 * then set READY (the publication) and its sleepers woken. A lookup that meets a CREATING entry
 * sleeps on its state word (a shared futex) until it is published, because it may hold the very
 * name it wants; every 10 ms it checks the claimer in /proc, and takes over the claim of a
 * process that is gone (or a zombie, or whose pid now names a process with another start
 * stamp). A block goes at the end of the last published block, rounded up to 64 bytes.
 */
#define _GNU_SOURCE
#include "pthread4j_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(pthread_mutex_t) == 40, "musl x86_64 pthread_mutex_t");
_Static_assert(sizeof(pthread_cond_t) == 48, "musl x86_64 pthread_cond_t");
_Static_assert(sizeof(pthread_rwlock_t) == 56, "musl x86_64 pthread_rwlock_t");
_Static_assert(sizeof(sem_t) == 32, "musl x86_64 sem_t");
_Static_assert(sizeof(pthread_barrier_t) == 32, "musl x86_64 pthread_barrier_t");

enum {
	MAGIC_OFFSET = 0, VERSION_OFFSET = 8, DATA_START_OFFSET = 12, TOTAL_SIZE_OFFSET = 16,
	CREATOR_PID_OFFSET = 24, CAPACITY_OFFSET = 28, CREATED_OFFSET = 32, ENTRY_SIZE_FIELD_OFFSET = 40,
	HEADER_RESERVED_OFFSET = 44, HEADER_SIZE = 64,
	ENTRY_SIZE = 64, NAME_FIELD = 32, STATE_OFFSET = 32, TYPE_OFFSET = 40, SIZE_OFFSET = 44,
	OFFSET_OFFSET = 48, CREATOR_OFFSET = 56, RESERVED_OFFSET = 60,
	VERSION = 1, FREE = 0, READY = 1, CREATING = 0x40000000, PID_MAX = 1 << 22,
	SLOT_ALIGNMENT = 64, MIN_SLOT_ALIGNMENT = 8, BYTES_PER_SLOT = 64,
};
/* futex(2) operations, shared (without FUTEX_PRIVATE_FLAG): the words are in a shared file. */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define MAX_TOTAL_SIZE (1LL << 30)
#define CREATION_TIMEOUT_NS 10000000000LL
#define CLAIMER_CHECK_NS 10000000LL
static const char MAGIC[8] = {'P', 'T', '4', 'J', 'S', 'Y', 'N', 'C'};

/* musl's words the attribute checks read (src/internal/pthread_impl.h). */
#define M_TYPE(m) (((volatile int *)(m))[0])        /* _m_type: kind | 4 robust | 128 pshared */
#define C_CLOCK(c) (((volatile int *)(c))[4])       /* _c_clock */
#define C_SHARED(c) (((void *volatile *)(c))[0])    /* _c_shared: (void *)-1 when shared */
#define B_LIMIT(b) (((volatile int *)(b))[2])       /* _b_limit: count-1 | INT_MIN when shared */

struct p4j_file {
	int fd;
	unsigned char *base;
	size_t length;
	int64_t data_start;
	unsigned capacity;
	uint64_t claim;
};

static int32_t rd32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int64_t rd64(const unsigned char *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ---------------------------------------------------------------------------------------- */
/* Liveness: /proc/PID/stat, as org.pthread4j.ipc.Liveness reads it. */

/* The state letter and the low 32 bits of starttime (field 22); 0 when unreadable. */
static int read_stat(int pid, char *state, uint32_t *stamp)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return 0;
	const ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) return 0;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ') return 0;
	p += 2;
	*state = *p;
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p) return 0;
		p++;
	}
	const unsigned long long ticks = strtoull(p, 0, 10);
	*stamp = (uint32_t)ticks ? (uint32_t)ticks : 1;
	return 1;
}

/* Whether the process that left a claim with this pid and stamp may still run. */
static int claimer_alive(int pid, uint32_t stamp)
{
	char state;
	uint32_t now;
	if (!read_stat(pid, &state, &now)) {
		struct stat st;
		return stat("/proc/self", &st) != 0; /* no /proc: assume alive */
	}
	if (state == 'Z' || state == 'X' || state == 'x') return 0;
	return stamp == 0 || now == stamp;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening and creating: no link followed, the umask applies, others' files refused. */

static int check_owner(const struct stat *st, int oflag)
{
	if (!S_ISREG(st->st_mode)) return EINVAL;
	if (oflag & P4J_ALLOW_WRITES_BY_OTHER_USERS) return 0;
	if (st->st_uid != geteuid() || (st->st_mode & 022)) return EACCES;
	return 0;
}

static int check_header(const unsigned char *h, size_t file_length)
{
	if (file_length < HEADER_SIZE || memcmp(h + MAGIC_OFFSET, MAGIC, 8)) return EBADMSG;
	if (rd32(h + VERSION_OFFSET) != VERSION || rd32(h + ENTRY_SIZE_FIELD_OFFSET) != ENTRY_SIZE) return EBADMSG;
	const int32_t capacity = rd32(h + CAPACITY_OFFSET);
	if (capacity < 1 || capacity > P4J_MAX_CAPACITY) return EBADMSG;
	const int32_t data_start = rd32(h + DATA_START_OFFSET);
	if (data_start != HEADER_SIZE + capacity * ENTRY_SIZE) return EBADMSG;
	for (int i = HEADER_RESERVED_OFFSET; i < HEADER_SIZE; i++)
		if (h[i]) return EBADMSG;
	const int64_t total = rd64(h + TOTAL_SIZE_OFFSET);
	if (total < data_start || total > MAX_TOTAL_SIZE || (uint64_t)total != file_length) return EBADMSG;
	const int32_t creator = rd32(h + CREATOR_PID_OFFSET);
	if (creator <= 0 || creator > PID_MAX) return EBADMSG;
	return 0;
}

static uint32_t self_stamp(void)
{
	char state;
	uint32_t stamp = 0;
	return read_stat(getpid(), &state, &stamp) ? stamp : 0;
}

/* Maps a validated open file; takes over FD. */
static p4j_file *map_file(int fd)
{
	struct stat st;
	unsigned char h[HEADER_SIZE];
	int e;
	if (fstat(fd, &st)) goto fail;
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
		errno = EBADMSG;
		goto fail;
	}
	if ((e = check_header(h, (size_t)st.st_size))) {
		errno = e;
		goto fail;
	}
	p4j_file *f = calloc(1, sizeof *f);
	if (!f) goto fail;
	f->length = (size_t)st.st_size;
	f->base = mmap(0, f->length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f->base == MAP_FAILED) {
		free(f);
		goto fail;
	}
	f->fd = fd;
	f->capacity = (unsigned)rd32(h + CAPACITY_OFFSET);
	f->data_start = rd32(h + DATA_START_OFFSET);
	f->claim = (uint64_t)self_stamp() << 32 | (uint32_t)(CREATING | getpid());
	return f;
fail:
	e = errno;
	close(fd);
	errno = e;
	return 0;
}

static int open_existing(const char *path, int oflag)
{
	const int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) return -1;
	struct stat st;
	int e = fstat(fd, &st) ? errno : check_owner(&st, oflag);
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Creates the file through a temporary file and a link; 0, or an errno (EEXIST when it exists). */
static int create_file(const char *path, int oflag, mode_t mode, unsigned capacity, size_t data_bytes, int *out)
{
	if (capacity < 1 || capacity > P4J_MAX_CAPACITY) return EINVAL;
	const int64_t data_start = HEADER_SIZE + (int64_t)capacity * ENTRY_SIZE;
	const int64_t total = data_start + (int64_t)(data_bytes ? data_bytes : (size_t)capacity * BYTES_PER_SLOT);
	if (total > MAX_TOTAL_SIZE || data_bytes > (size_t)MAX_TOTAL_SIZE) return EINVAL;
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const int dir_len = slash ? (int)(slash - path + 1) : 0;
	int fd = -1;
	for (int attempt = 0; fd < 0; attempt++) {
		if (snprintf(tmp, sizeof tmp, "%.*s.%s.tmp-%d-%lld", dir_len, path, slash ? slash + 1 : path, (int)getpid(),
		    now_ns()) >= (int)sizeof tmp) return ENAMETOOLONG;
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
		if (fd < 0 && (errno != EEXIST || attempt > 100)) return errno;
	}
	int e;
	struct stat st;
	if (fstat(fd, &st)) {
		e = errno;
		goto fail;
	}
	if (!(oflag & P4J_ALLOW_WRITES_BY_OTHER_USERS) && (st.st_mode & 022)) {
		e = EACCES; /* the mode, after the umask, lets others write the lock words */
		goto fail;
	}
	unsigned char h[HEADER_SIZE] = {0};
	const int32_t version = VERSION, entry = ENTRY_SIZE, pid = getpid(), cap = (int32_t)capacity;
	const int32_t start = (int32_t)data_start;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	const int64_t created = rt.tv_sec * 1000LL + rt.tv_nsec / 1000000;
	memcpy(h + MAGIC_OFFSET, MAGIC, 8);
	memcpy(h + VERSION_OFFSET, &version, 4);
	memcpy(h + DATA_START_OFFSET, &start, 4);
	memcpy(h + TOTAL_SIZE_OFFSET, &total, 8);
	memcpy(h + CREATOR_PID_OFFSET, &pid, 4);
	memcpy(h + CAPACITY_OFFSET, &cap, 4);
	memcpy(h + CREATED_OFFSET, &created, 8);
	memcpy(h + ENTRY_SIZE_FIELD_OFFSET, &entry, 4);
	if (ftruncate(fd, (off_t)total) || pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
		e = errno;
		goto fail;
	}
	if (link(tmp, path)) {
		e = errno;
		goto fail;
	}
	unlink(tmp);
	*out = fd;
	return 0;
fail:
	close(fd);
	unlink(tmp);
	return e;
}

p4j_file *p4j_open(const char *path, int oflag, mode_t mode, unsigned capacity, size_t data_bytes)
{
	const int create = oflag & O_CREAT, exclusive = create && (oflag & O_EXCL);
	if (!path || !*path) {
		errno = EINVAL;
		return 0;
	}
	struct stat st;
	if (exclusive && !lstat(path, &st)) {
		errno = EEXIST;
		return 0;
	}
	for (int attempt = 0;; attempt++) {
		if (!exclusive) {
			const int fd = open_existing(path, oflag);
			if (fd >= 0) return map_file(fd);
			if (errno != ENOENT || !create) return 0;
		}
		int fd = -1;
		const int e = create_file(path, oflag, mode, capacity, data_bytes, &fd);
		if (!e) return map_file(fd);
		if (e != EEXIST || exclusive || attempt > 100) {
			errno = e;
			return 0;
		}
	}
}

int p4j_close(p4j_file *f)
{
	if (!f) {
		errno = EINVAL;
		return -1;
	}
	munmap(f->base, f->length);
	close(f->fd);
	free(f);
	return 0;
}

int64_t p4j_offset(const p4j_file *f, const void *p)
{
	return (const unsigned char *)p - f->base;
}

/* ---------------------------------------------------------------------------------------- */
/* Slots */

static int name_ok(const char *name)
{
	const size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > P4J_MAX_NAME) return 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
		    || c == '-')) return 0;
	}
	return 1;
}

/* The size of a slot type, 0 for raw (any size of at least 4), -1 for an unknown type. */
static long type_size(int type)
{
	static const long sizes[] = {-1, 40, 48, 56, 32, 32, 4, 4, 0, 8};
	return type >= 1 && type <= P4J_DOORBELL ? sizes[type] : -1;
}

static int size_ok(int type, int64_t size)
{
	const long t = type_size(type);
	return t < 0 ? 0 : t == 0 ? size >= 4 && size <= INT_MAX : size == t;
}

static unsigned char *entry(const p4j_file *f, unsigned i)
{
	return f->base + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
}

static volatile uint64_t *state_word(const p4j_file *f, unsigned i)
{
	return (volatile uint64_t *)(entry(f, i) + STATE_OFFSET);
}

static void futex_wake_all(volatile void *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, 0, 0, 0);
}

/* What a walk of the published entries has seen so far: where data ends, to place the next block. */
struct walk {
	int64_t data_end;
};

/* Validates published entry I as the JVM does (Directory.accept), against the entries before it. */
static int check_entry(const p4j_file *f, unsigned i, struct walk *w)
{
	const unsigned char *e = entry(f, i);
	size_t n = 0;
	while (n < NAME_FIELD && e[n]) n++;
	if (n == 0 || n == NAME_FIELD) return EBADMSG;
	for (size_t k = n; k < NAME_FIELD; k++)
		if (e[k]) return EBADMSG;
	char name[NAME_FIELD];
	memcpy(name, e, NAME_FIELD);
	if (!name_ok(name)) return EBADMSG;
	const int type = rd32(e + TYPE_OFFSET);
	const int64_t size = rd32(e + SIZE_OFFSET), offset = rd64(e + OFFSET_OFFSET);
	const int32_t creator = rd32(e + CREATOR_OFFSET);
	if (!size_ok(type, size) || offset < f->data_start || offset > (int64_t)f->length - size
	    || offset % MIN_SLOT_ALIGNMENT || creator <= 0 || creator > PID_MAX || rd32(e + RESERVED_OFFSET))
		return EBADMSG;
	if (offset < w->data_end) {
		/* Not past every block so far (the protocol's order): it must overlap none of them. */
		for (unsigned j = 0; j < i; j++) {
			const unsigned char *o = entry(f, j);
			const int64_t oo = rd64(o + OFFSET_OFFSET), os = rd32(o + SIZE_OFFSET);
			if (offset < oo + os && oo < offset + size) return EBADMSG;
		}
	}
	if (offset + size > w->data_end) w->data_end = offset + size;
	return 0;
}

/* Fills in the claimed entry I, initializes its block, publishes it. */
static void *create_at(p4j_file *f, unsigned i, const char *name, int type, size_t size,
	int (*init)(void *, void *), void *arg, const struct walk *w)
{
	unsigned char *e = entry(f, i);
	const int64_t offset = (w->data_end + SLOT_ALIGNMENT - 1) & -(int64_t)SLOT_ALIGNMENT;
	int err = ENOSPC;
	if (offset <= (int64_t)f->length - (int64_t)size) {
		const int32_t t = type, s = (int32_t)size, pid = getpid(), zero = 0;
		memset(e, 0, NAME_FIELD);
		memcpy(e, name, strlen(name));
		memcpy(e + TYPE_OFFSET, &t, 4);
		memcpy(e + SIZE_OFFSET, &s, 4);
		memcpy(e + OFFSET_OFFSET, &offset, 8);
		memcpy(e + CREATOR_OFFSET, &pid, 4);
		memcpy(e + RESERVED_OFFSET, &zero, 4);
		void *block = f->base + offset;
		memset(block, 0, size);
		err = init ? init(block, arg) : 0;
		if (!err) {
			/* The publication: every write above happens-before a lookup that reads READY. */
			__atomic_store_n((volatile int32_t *)(e + STATE_OFFSET), READY, __ATOMIC_SEQ_CST);
			futex_wake_all(e + STATE_OFFSET);
			return block;
		}
	}
	memset(e, 0, STATE_OFFSET);
	memset(e + TYPE_OFFSET, 0, ENTRY_SIZE - TYPE_OFFSET);
	__atomic_store_n(state_word(f, i), (uint64_t)FREE, __ATOMIC_SEQ_CST);
	futex_wake_all(e + STATE_OFFSET);
	errno = err;
	return 0;
}

/* Whether the file is still as long as its mapping (an access past a truncated end faults). */
static int intact(const p4j_file *f)
{
	struct stat st;
	return !fstat(f->fd, &st) && (size_t)st.st_size >= f->length;
}

/*
 * The walk of get-or-create. With CREATE 0, a lookup that creates nothing and waits for no
 * creation: the published slot, or NULL and ENOENT.
 */
static void *lookup(p4j_file *f, const char *name, int type, size_t size, int (*init)(void *, void *), void *arg,
	int create, int *found_type, size_t *found_size)
{
	if (!f || !name_ok(name) || (create && !size_ok(type, (int64_t)size))) {
		errno = EINVAL;
		return 0;
	}
	if (!intact(f)) {
		errno = EBADMSG;
		return 0;
	}
	struct walk w = {f->data_start};
	const long long start = now_ns();
	for (unsigned i = 0; i < f->capacity;) {
		volatile uint64_t *sw = state_word(f, i);
		uint64_t v = __atomic_load_n(sw, __ATOMIC_SEQ_CST);
		const int32_t state = (int32_t)v;
		if (state == READY) {
			const int e = check_entry(f, i, &w);
			if (e) {
				errno = e;
				return 0;
			}
			const unsigned char *en = entry(f, i);
			if (!strncmp((const char *)en, name, NAME_FIELD)) {
				const int t = rd32(en + TYPE_OFFSET);
				const size_t s = (size_t)rd32(en + SIZE_OFFSET);
				if (found_type) *found_type = t;
				if (found_size) *found_size = s;
				if (create && (t != type || s != size)) {
					errno = EEXIST;
					return 0;
				}
				return f->base + rd64(en + OFFSET_OFFSET);
			}
			i++;
		} else if (!create && (state == FREE || (state & CREATING))) {
			break;
		} else if (state == FREE) {
			if (__atomic_compare_exchange_n(sw, &v, f->claim, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				return create_at(f, i, name, type, size, init, arg, &w);
		} else if ((state & CREATING) && (state & ~CREATING) > 0 && (state & ~CREATING) <= PID_MAX) {
			if (!claimer_alive(state & ~CREATING, (uint32_t)(v >> 32))) {
				if (__atomic_compare_exchange_n(sw, &v, f->claim, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
					return create_at(f, i, name, type, size, init, arg, &w);
				continue;
			}
			if (now_ns() - start > CREATION_TIMEOUT_NS) {
				errno = ETIMEDOUT;
				return 0;
			}
			const struct timespec ts = {0, CLAIMER_CHECK_NS};
			syscall(SYS_futex, (volatile int32_t *)sw, FUTEX_WAIT, state, &ts, 0, 0);
		} else {
			errno = EBADMSG;
			return 0;
		}
	}
	errno = create ? ENOSPC : ENOENT;
	return 0;
}

void *p4j_slot(p4j_file *f, const char *name, int type, size_t size, int (*init)(void *, void *), void *arg)
{
	return lookup(f, name, type, size, init, arg, 1, 0, 0);
}

void *p4j_find(p4j_file *f, const char *name, int *type, size_t *size)
{
	return lookup(f, name, 0, 0, 0, 0, 0, type, size);
}

void *p4j_raw(p4j_file *f, const char *name, size_t size)
{
	return p4j_slot(f, name, P4J_RAW, size, 0, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Primitives: initialized by musl's own *_init, always process-shared. */

/* _m_type bits the JVM compares: kind, robust, pshared. */
#define MUTEX_BITS (3 | 4 | 128)

static int init_mutex(void *block, void *arg)
{
	return pthread_mutex_init(block, arg);
}

/* A process-shared copy of ATTR (or of the defaults), and the _m_type it gives. */
static int shared_mutexattr(const pthread_mutexattr_t *attr, pthread_mutexattr_t *out, int *bits)
{
	int type = PTHREAD_MUTEX_NORMAL, robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE;
	if (attr && (pthread_mutexattr_gettype(attr, &type) || pthread_mutexattr_getrobust(attr, &robust)
	    || pthread_mutexattr_getprotocol(attr, &protocol))) return EINVAL;
	if (protocol != PTHREAD_PRIO_NONE) return ENOTSUP;
	pthread_mutexattr_init(out);
	pthread_mutexattr_settype(out, type);
	pthread_mutexattr_setrobust(out, robust);
	pthread_mutexattr_setpshared(out, PTHREAD_PROCESS_SHARED);
	*bits = (type & 3) | (robust == PTHREAD_MUTEX_ROBUST ? 4 : 0) | 128;
	return 0;
}

pthread_mutex_t *p4j_mutex(p4j_file *f, const char *name, const pthread_mutexattr_t *attr)
{
	pthread_mutexattr_t a;
	int bits, e = shared_mutexattr(attr, &a, &bits);
	if (e) {
		errno = e;
		return 0;
	}
	pthread_mutex_t *m = p4j_slot(f, name, P4J_MUTEX, sizeof *m, init_mutex, &a);
	if (m && attr && (M_TYPE(m) & MUTEX_BITS) != bits) {
		errno = EEXIST; /* the name exists with other attributes; p4j_mutex(f, name, 0) attaches */
		return 0;
	}
	return m;
}

pthread_mutex_t *p4j_lock(p4j_file *f, const char *name)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_t *m = p4j_slot(f, name, P4J_MUTEX, sizeof *m, init_mutex, &a);
	if (m && (M_TYPE(m) & 3) == PTHREAD_MUTEX_NORMAL) {
		errno = EEXIST; /* a NORMAL mutex records no owner */
		return 0;
	}
	return m;
}

static int init_cond(void *block, void *arg)
{
	return pthread_cond_init(block, arg);
}

pthread_cond_t *p4j_cond(p4j_file *f, const char *name, const pthread_condattr_t *attr)
{
	clockid_t clock = CLOCK_REALTIME;
	if (attr && pthread_condattr_getclock(attr, &clock)) {
		errno = EINVAL;
		return 0;
	}
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, clock);
	pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_cond_t *c = p4j_slot(f, name, P4J_COND, sizeof *c, init_cond, &a);
	if (c && attr && C_CLOCK(c) != (int)clock) {
		errno = EEXIST;
		return 0;
	}
	return c;
}

static int init_rwlock(void *block, void *arg)
{
	return pthread_rwlock_init(block, arg);
}

pthread_rwlock_t *p4j_rwlock(p4j_file *f, const char *name)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	return p4j_slot(f, name, P4J_RWLOCK, sizeof(pthread_rwlock_t), init_rwlock, &a);
}

static int init_sem(void *block, void *arg)
{
	return sem_init(block, 1, *(unsigned *)arg) ? errno : 0;
}

sem_t *p4j_sem(p4j_file *f, const char *name, unsigned value)
{
	if (value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return 0;
	}
	return p4j_slot(f, name, P4J_SEM, sizeof(sem_t), init_sem, &value);
}

struct barrier_init {
	pthread_barrierattr_t attr;
	unsigned count;
};

static int init_barrier(void *block, void *arg)
{
	struct barrier_init *b = arg;
	return pthread_barrier_init(block, &b->attr, b->count);
}

pthread_barrier_t *p4j_barrier(p4j_file *f, const char *name, unsigned count)
{
	if (count < 1 || count > INT_MAX) {
		errno = EINVAL;
		return 0;
	}
	struct barrier_init b = {.count = count};
	pthread_barrierattr_init(&b.attr);
	pthread_barrierattr_setpshared(&b.attr, PTHREAD_PROCESS_SHARED);
	pthread_barrier_t *bar = p4j_slot(f, name, P4J_BARRIER, sizeof *bar, init_barrier, &b);
	if (bar && (unsigned)(B_LIMIT(bar) & INT_MAX) + 1 != count) {
		errno = EEXIST;
		return 0;
	}
	return bar;
}
