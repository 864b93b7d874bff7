/* The fork server's loop, and a spare's taking of its request, in C: `_forkserver.py` runs
 * these when they are built.
 *
 * The fork server is a fork of the worker's interpreter, and every spare it forks shares its
 * pages copy-on-write. Run in Python, each turn of its loop writes to hundreds of those pages
 * (reference counts, frames, the objects of each call), so every turn copies them again, and
 * each step's exit report waits for an interpreter to wake up. This loop writes only its own
 * stack and a few words, and makes the same system calls in the same order as
 * `ForkServer._serve_in_python`, which is its specification and stays the fallback.
 *
 * serve(sock, policy, pids, own_proc, signal_uid, work) never returns in the fork server: it returns (fd, policy) in each
 * spare it forks, which then carries on in Python (`ForkServer._be_spare`). Any failure of a
 * system call the loop needs ends the fork server, and with it the worker's pid namespace:
 * the supervisor then reports a fault, and the job runs again on a new worker. One shortcut
 * of its own: `pids` (the worker cgroup's pids.current, or -1) tells when nothing but the
 * fork server and the step's keeper is left, and then the keeper alone is killed and reaped
 * instead of every process of the namespace being stopped, listed, killed and reaped (the
 * keeper sleeps with every signal blocked, so it cannot start anything meanwhile).
 *
 * And one thing the Python loop does not do: after a rehearsal (the supervisor's LEARN in
 * place of RELEASE, see `Supervisor.rehearse`), it reads which pages of the memory a spare
 * starts with the rehearsal's step process wrote, and every later spare copies those pages
 * in one go as it is forked, rather than one copy-on-write fault at a time, many of them on
 * its step's path. It learns only from rehearsals, whose code is trusted: what a submission
 * writes never shapes what the next one finds.
 *
 * prepare(uid, filter, name, attr, rules, new_ipc) is `_forkserver._prepare` for a spare: an IPC
 * namespace of its own (`new_ipc`: the namespace tiers), its own session, the submission's uid,
 * its sockets policy's seccomp filter, in the `container` tier its own Landlock layer (`attr`
 * and `rules` of `_linux.StepLandlock`; empty elsewhere) and the keeper of its address space.
 * attach(sock, keeper) is `_forkserver.attach`: it waits for the step's request, wires its
 * descriptors, applies its rlimits (to the keeper too) and enters the work dir, so that the
 * step's first instructions after its request are a few system calls rather than an
 * interpreter's cold walk through a dozen modules (or it returns None when the supervisor
 * says WARM instead: the worker is idle, and the spare may warm up first). Both write far
 * fewer of the pages a spare shares with the fork server than ctypes and Python do.
 */
#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Message kinds, as in _forkserver.py. */
#define SPARE 's'
#define STARTED 'p'
#define EXITED 'x'
#define CLEAN 'c'
#define RELEASE 'k'
#define LEARN 'l'
#define WARM 'w'       /* (from the supervisor, to a spare) warm up while the worker is idle */
#define MAX_REQUEST (1 << 16)
#define MAX_FDS 8
#define CONFINED '+'     /* the first byte a step writes on its setup pipe once it is confined */
#define MAX_PATH 4096
#define HIGH_FD 100      /* where the setup pipe moves, out of the step's way */
#define RLIMIT_SIZE 20   /* struct "=iQQ": resource, soft, hard (see encode_request) */

typedef struct {
    pid_t pid;
    int sock; /* ours; the spare holds the other end */
} spare_t;

/* Whether /proc lists this pid namespace's processes (in the `userns` tier inside a container,
 * /proc is the container's, bound, and nothing may rely on listing ours). */
static int own_proc = 1;

/* The folder a step runs in (the worker's view's /sandbox; its own folder in the `container`
 * tier), and the uid to signal all steps' processes as there (-1: as pid 1 of our namespace). */
static char work_dir[MAX_PATH] = "/sandbox";
static long long signal_uid = -1;

/* The status of a child reaped while waiting for others (a spare that died early). */
static pid_t saved_pid = 0;
static int saved_status = 0;

/* The largest peak RSS (KiB) among the current step's processes reaped so far (RUSAGE_CHILDREN
 * would give the largest of every step so far). */
static long peak_rss = 0;

static _Noreturn void die(const char *what) {
    dprintf(2, "codegym fork server: %s: %s\n", what, strerror(errno));
    _exit(1);
}

/* Room for the descriptors of one message (SCM_RIGHTS), aligned as a cmsghdr. */
typedef union {
    char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
    struct cmsghdr align;
} control_t;

/* A message of one buffer, with `control_len` bytes of `control` for descriptors. */
static struct msghdr message(struct iovec *iov, control_t *control, size_t control_len) {
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control_len > 0 ? control->buf : NULL;
    msg.msg_controllen = control_len;
    return msg;
}

static int send_fds(int sock, const void *data, size_t len, const int *fds, int nfds) {
    struct iovec iov = {(void *)data, len};
    control_t control;
    struct msghdr msg = message(&iov, &control, nfds > 0 ? CMSG_SPACE(sizeof(int) * nfds) : 0);
    if (nfds > 0) {
        struct cmsghdr *header = CMSG_FIRSTHDR(&msg);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * nfds);
    }
    ssize_t sent;
    do sent = sendmsg(sock, &msg, 0);
    while (sent < 0 && errno == EINTR);
    return sent < 0 ? -1 : 0;
}

/* One datagram and the descriptors that came with it; its length (0: the peer is gone, -1:
 * an error, in errno). */
static ssize_t recv_fds(int sock, char *data, size_t size, int *fds, int *nfds) {
    struct iovec iov = {data, size};
    control_t control;
    struct msghdr msg = message(&iov, &control, sizeof control.buf);
    ssize_t got;
    do got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    *nfds = 0;
    if (got < 0) return -1;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h != NULL; h = CMSG_NXTHDR(&msg, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
            if (*nfds < MAX_FDS) fds[(*nfds)++] = fd;
            else close(fd);
        }
    }
    return got;
}

static ssize_t recv_retry(int sock, void *data, size_t size) {
    ssize_t got;
    do got = recv(sock, data, size, 0);
    while (got < 0 && errno == EINTR);
    return got;
}

static void send_kind(int sock, char kind) {
    if (send_fds(sock, &kind, 1, NULL, 0) < 0) die("send");
}

static int pidfd_open(pid_t pid) {
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) die("pidfd_open");
    return fd;
}

/* Send sig to every process of the steps: as pid 1, every other process of the namespace. In
 * the `container` tier (no namespace of ours, and we are the container's root), every process
 * of the submissions' uid, from a child that takes that uid (kill(-1) spares the sender). */
static void signal_all(int sig) {
    if (signal_uid < 0) {
        if (kill(-1, sig) < 0 && errno != ESRCH) die("kill");
        return;
    }
    pid_t helper = fork();
    if (helper < 0) die("fork");
    if (helper == 0) {
        if (setgroups(0, NULL) < 0 || setgid((gid_t)signal_uid) < 0 || setuid((uid_t)signal_uid) < 0) _exit(1);
        _exit(kill(-1, sig) < 0 && errno != ESRCH ? 1 : 0);
    }
    int status;
    while (waitpid(helper, &status, 0) < 0)
        if (errno != EINTR) die("waitpid (the signalling helper)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        errno = EPERM;
        die("signal the submissions' uid");
    }
}

/* As pid 1: every other process of the namespace, zombies included; *count of them. */
static pid_t *processes(size_t *count) {
    DIR *proc = opendir("/proc");
    if (proc == NULL) die("opendir /proc");
    size_t size = 16;
    pid_t *pids = malloc(size * sizeof *pids);
    if (pids == NULL) die("malloc");
    *count = 0;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 1 || entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        if (*count == size) {
            size *= 2;
            pids = realloc(pids, size * sizeof *pids);
            if (pids == NULL) die("realloc");
        }
        pids[(*count)++] = (pid_t)pid;
    }
    closedir(proc);
    return pids;
}

/* Reap children (orphans among them) until pid is reaped; its wait status. */
static int wait_for(pid_t pid) {
    if (saved_pid == pid) {
        saved_pid = 0;
        return saved_status;
    }
    saved_pid = 0;
    for (;;) {
        int status;
        struct rusage usage;
        pid_t reaped = wait4(-1, &status, 0, &usage);
        if (reaped < 0) {
            if (errno == EINTR) continue;
            die("wait4");
        }
        if (usage.ru_maxrss > peak_rss) peak_rss = usage.ru_maxrss;
        if (reaped == pid) return status;
    }
}

/* After a SIGKILL to all: reap children until none of pids is left (a process that is gone,
 * or that someone else reaped, no longer takes a signal; pids are zeroed as they go). The
 * status of `keep`, if it is reaped meanwhile (a spare that died), is saved for `wait_for`. */
static void reap(pid_t *pids, size_t count, pid_t keep) {
    for (;;) {
        int left = 0;
        for (size_t i = 0; i < count; i++) {
            if (pids[i] > 0 && kill(pids[i], 0) < 0 && errno == ESRCH) pids[i] = 0;
            left |= pids[i] > 0;
        }
        if (!left) break;
        int status;
        pid_t reaped = waitpid(-1, &status, 0);
        if (reaped < 0) {
            if (errno == EINTR) continue;
            if (errno == ECHILD) break;
            die("waitpid");
        }
        if (reaped == keep) {
            saved_pid = reaped;
            saved_status = status;
        }
        for (size_t i = 0; i < count; i++)
            if (pids[i] == reaped) pids[i] = 0;
    }
}

/* After a SIGKILL to all, where /proc does not list ours: reap children until none is left.
 * Every process of the namespace is one, or soon will be (an orphan's parent is pid 1). */
static void reap_all(void) {
    for (;;) {
        int status;
        if (waitpid(-1, &status, 0) >= 0 || errno == EINTR) continue;
        if (errno == ECHILD) return;
        die("waitpid");
    }
}

/* After a SIGKILL to all: the processes still to reap, *count of them (none once reap_all
 * has reaped them all, where /proc cannot list them). */
static pid_t *killed(size_t *count) {
    if (own_proc) return processes(count);
    reap_all();
    *count = 0;
    return NULL;
}

/* Pages to copy into each spare as it is forked: those that the process of the last rehearsal
 * had copied for itself among the fork server's writable private mappings (a spare starts
 * with the same ones). Read from its keeper's /proc pagemap, which holds its address space. */
#define MAX_MAPPINGS 512
#define MAX_LEARNED 4096 /* pages */
#define PAGEMAP_BATCH 512
#define PM_PRESENT (1ULL << 63)
#define PM_FILE_OR_SHARED (1ULL << 61)
#define PM_EXCLUSIVE (1ULL << 56)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

typedef struct {
    uintptr_t start, end;
} mapping_t;

static mapping_t writable[MAX_MAPPINGS];
static size_t writable_count = 0;
static uintptr_t learned[MAX_LEARNED]; /* ascending */
static size_t learned_count = 0;
static uintptr_t page_size = 4096;

/* The fork server's writable private mappings, once: its loop allocates nothing after. */
static void find_writable(void) {
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return; /* then nothing is learned */
    char line[512];
    while (writable_count < MAX_MAPPINGS && fgets(line, sizeof line, maps) != NULL) {
        unsigned long start, end;
        char mode[5];
        if (sscanf(line, "%lx-%lx %4s", &start, &end, mode) == 3 && mode[0] == 'r' && mode[1] == 'w' && mode[3] == 'p')
            writable[writable_count++] = (mapping_t){start, end};
    }
    fclose(maps);
}

/* Add `page` to the learned pages, kept ascending (rehearsals come a few times per worker). */
static void remember(uintptr_t page) {
    size_t at = learned_count;
    while (at > 0 && learned[at - 1] > page) at--;
    if ((at > 0 && learned[at - 1] == page) || learned_count == MAX_LEARNED) return;
    memmove(learned + at + 1, learned + at, (learned_count - at) * sizeof *learned);
    learned[at] = page;
    learned_count++;
}

/* Learn the pages the rehearsed step's process (its keeper holds its memory) had of its own:
 * present, anonymous, and mapped by no other process. */
static void learn(pid_t keeper) {
    char path[32];
    snprintf(path, sizeof path, "/proc/%d/pagemap", (int)keeper);
    int pagemap = keeper > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (pagemap < 0) return;
    static uint64_t entries[PAGEMAP_BATCH];
    for (size_t m = 0; m < writable_count; m++) {
        for (uintptr_t page = writable[m].start; page < writable[m].end;) {
            size_t want = (writable[m].end - page) / page_size;
            if (want > PAGEMAP_BATCH) want = PAGEMAP_BATCH;
            ssize_t got = pread(pagemap, entries, want * sizeof *entries, (off_t)(page / page_size * sizeof *entries));
            if (got <= 0) break;
            size_t count = (size_t)got / sizeof *entries;
            for (size_t i = 0; i < count; i++)
                if ((entries[i] & (PM_PRESENT | PM_EXCLUSIVE | PM_FILE_OR_SHARED)) == (PM_PRESENT | PM_EXCLUSIVE))
                    remember(page + i * page_size);
            page += count * page_size;
        }
    }
    close(pagemap);
}

/* In a spare just forked: copy the learned pages now, each run of neighbours at once. */
static void copy_learned(void) {
    for (size_t i = 0; i < learned_count;) {
        size_t j = i + 1;
        while (j < learned_count && learned[j] == learned[j - 1] + page_size) j++;
        (void)madvise((void *)learned[i], (j - i) * page_size, MADV_POPULATE_WRITE); /* only a head start */
        i = j;
    }
}

/* Fork a spare. In the parent, fills *spare and returns NULL; in the spare, returns what
 * serve() returns there: (its socket, its sockets policy), with nothing else of ours open
 * and /dev/null on 0-2. */
static PyObject *fork_spare(const char *policy, size_t policy_len, spare_t *spare) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) die("socketpair");
    PyOS_BeforeFork();
    pid_t pid = fork();
    if (pid == 0) {
        PyOS_AfterFork_Child();
        copy_learned();
        int theirs = pair[1];
        int null = open("/dev/null", O_RDWR);
        if (null < 0) die("open /dev/null");
        for (int fd = 0; fd < 3; fd++)
            if (dup2(null, fd) < 0) die("dup2");
        /* Nothing of ours (the server's socket, a request's descriptors) may reach its keeper. */
        if (theirs > 3 && syscall(SYS_close_range, 3, theirs - 1, 0) < 0) die("close_range");
        if (syscall(SYS_close_range, theirs + 1, ~0U, 0) < 0) die("close_range");
        return Py_BuildValue("(iy#)", theirs, policy, (Py_ssize_t)policy_len);
    }
    int fork_errno = errno;
    PyOS_AfterFork_Parent();
    if (pid < 0) {
        errno = fork_errno;
        die("fork");
    }
    close(pair[1]);
    spare->pid = pid;
    spare->sock = pair[0];
    return NULL;
}

/* Wait until the spare says it is confined, with its keeper's pid (-1 if it failed, or if
 * it died: then recv reads nothing). */
static pid_t await_keeper(const spare_t *spare) {
    char keeper[16];
    ssize_t got = recv_retry(spare->sock, keeper, sizeof keeper - 1);
    if (got < 0) die("recv from the spare");
    keeper[got] = '\0';
    long pid = got > 0 ? strtol(keeper, NULL, 10) : -1;
    return pid > 1 ? (pid_t)pid : -1;
}

/* Whether the worker's cgroup holds the fork server and the keeper and nothing else: two
 * tasks, one of them the keeper's pid (a step may have killed its keeper, and every process of
 * the namespace is in the cgroup, which a step cannot leave). */
static int only_keeper_left(int pids, pid_t keeper) {
    char count[32];
    if (pids < 0 || keeper < 0 || kill(keeper, 0) < 0) return 0;
    ssize_t got = pread(pids, count, sizeof count - 1, 0);
    if (got <= 0) return 0;
    count[got] = '\0';
    return strtol(count, NULL, 10) == 2;
}

/* A step whose sockets policy is not the ready spare's, from a request of the form
 * "policy\0request": once the unused spare's keeper is gone, fork a spare for it, hand it
 * the request and tell the supervisor its pidfd. Returns non-NULL in that spare. */
static PyObject *start_other(int server, char *data, size_t len, int *fds, int nfds, spare_t *spare, pid_t *keeper) {
    char *nul = memchr(data, '\0', len);
    if (nul == NULL) {
        errno = EPROTO;
        die("a request without its sockets policy");
    }
    signal_all(SIGKILL);
    size_t count;
    pid_t *pids = killed(&count);
    reap(pids, count, 0);
    free(pids);
    PyObject *child = fork_spare(data, (size_t)(nul - data), spare);
    if (child != NULL) return child;
    *keeper = await_keeper(spare);
    char *request = nul + 1;
    (void)send_fds(spare->sock, request, len - (size_t)(request - data), fds, nfds); /* if it died, its silent setup pipe tells */
    close(spare->sock);
    for (int i = 0; i < nfds; i++) close(fds[i]);
    int pidfd = pidfd_open(spare->pid);
    char kind = STARTED;
    if (send_fds(server, &kind, 1, &pidfd, 1) < 0) die("send the step's pidfd");
    close(pidfd);
    return NULL;
}

static double cpu_seconds(const struct rusage *before, const struct rusage *after) {
    double user = (double)(after->ru_utime.tv_sec - before->ru_utime.tv_sec) +
                  (double)(after->ru_utime.tv_usec - before->ru_utime.tv_usec) * 1e-6;
    double system = (double)(after->ru_stime.tv_sec - before->ru_stime.tv_sec) +
                    (double)(after->ru_stime.tv_usec - before->ru_stime.tv_usec) * 1e-6;
    return user + system;
}

/* EXITED, then the step's `EXIT` record: struct "=idq" (status, CPU seconds, max RSS in KiB). */
static void send_exit(int server, int status, double cpu, long max_rss) {
    char message[1 + 4 + 8 + 8];
    int32_t status32 = status;
    int64_t rss64 = max_rss;
    message[0] = EXITED;
    memcpy(message + 1, &status32, 4);
    memcpy(message + 5, &cpu, 8);
    memcpy(message + 13, &rss64, 8);
    if (send_fds(server, message, sizeof message, NULL, 0) < 0) die("send the exit");
}

static PyObject *serve(PyObject *module, PyObject *args) {
    int server, pids;
    const char *policy, *work;
    Py_ssize_t policy_len;
    (void)module;
    if (!PyArg_ParseTuple(args, "iy#ipLs:serve", &server, &policy, &policy_len, &pids, &own_proc, &signal_uid, &work))
        return NULL;
    if (strlen(work) >= sizeof work_dir) {
        PyErr_SetString(PyExc_ValueError, "the work folder's path is too long");
        return NULL;
    }
    strcpy(work_dir, work);
    static char request[MAX_REQUEST];
    spare_t spare;
    find_writable();
    PyObject *child = fork_spare(policy, (size_t)policy_len, &spare);
    if (child != NULL) return child;
    for (;;) {
        pid_t keeper = await_keeper(&spare); /* once it has said this, it is confined and waiting */
        struct rusage before, after;
        getrusage(RUSAGE_CHILDREN, &before);
        peak_rss = 0;
        int offer[2] = {spare.sock, pidfd_open(spare.pid)};
        char kind = SPARE;
        if (send_fds(server, &kind, 1, offer, 2) < 0) die("offer the spare");
        close(offer[0]);
        close(offer[1]);
        int status = wait_for(spare.pid);
        struct pollfd pending = {server, POLLIN, 0};
        if (poll(&pending, 1, 0) > 0) { /* the supervisor killed the spare: its step needs another */
            int fds[MAX_FDS], nfds;
            ssize_t len = recv_fds(server, request, sizeof request, fds, &nfds);
            if (len < 0) die("recvmsg");
            if (len == 0) _exit(0); /* the supervisor is gone */
            getrusage(RUSAGE_CHILDREN, &before);
            child = start_other(server, request, (size_t)len, fds, nfds, &spare, &keeper);
            if (child != NULL) return child;
            status = wait_for(spare.pid);
        }
        getrusage(RUSAGE_CHILDREN, &after);
        int quiet = only_keeper_left(pids, keeper);
        if (!quiet) signal_all(SIGSTOP); /* whatever the step left running stops, and its keeper */
        send_exit(server, status, cpu_seconds(&before, &after), peak_rss);
        /* Everything dies only once the supervisor is done with the step. */
        char reply[16];
        if (recv_retry(server, reply, sizeof reply) != 1 || (reply[0] != RELEASE && reply[0] != LEARN)) _exit(0);
        if (reply[0] == LEARN && own_proc) learn(keeper); /* before the kill */
        size_t count = 1;
        pid_t *old = &keeper;
        if (quiet) {
            if (kill(keeper, SIGKILL) < 0 && errno != ESRCH) die("kill the keeper");
        } else {
            signal_all(SIGKILL);
            old = killed(&count);
        }
        child = fork_spare(policy, (size_t)policy_len, &spare); /* after the kill */
        if (child == NULL) reap(old, count, spare.pid); /* while the spare confines itself */
        if (old != &keeper) free(old); /* (free(NULL) is nothing) */
        if (child != NULL) return child;
        send_kind(server, CLEAN);
    }
}

/* The keeper: it shares the spare's address space and sleeps with every signal blocked, so
 * only SIGKILL ends it (see `_linux.spawn_address_space_keeper`). */
static char keeper_stack[1 << 14] __attribute__((aligned(16)));

static int keep(void *unused) {
    (void)unused;
    for (;;) pause();
    return 0;
}

static pid_t spawn_keeper(void) {
    uint64_t all = ~(uint64_t)0, old;
    /* raw: glibc's sigprocmask would leave its own two signals unblocked */
    if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all) < 0) return -1;
    pid_t pid = clone(keep, keeper_stack + sizeof keeper_stack, CLONE_VM | CLONE_PARENT | SIGCHLD, NULL);
    int clone_errno = errno;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
    errno = clone_errno;
    return pid;
}

/* In the `container` tier: the step's own Landlock layer (`_linux.StepLandlock`, whose `attr`
 * and `rules` these are: each rule a u64 of rights, KEEP_OPEN among them, and a NUL-ended
 * path). It restricts reading and listing to the paths of the fork server's layer but /proc,
 * the shared files of /proc and the step's own /proc/<pid>, and (ABI 6) scopes signals and
 * abstract unix sockets: the fork server's helpers take the steps' uid to signal them, and
 * none of them may be stopped or killed on its way. The descriptors marked KEEP_OPEN stay
 * open, for the keeper to hold. Returns -1 with errno set where the kernel refuses. */
#define KEEP_OPEN (1ULL << 63)
static int step_landlock(const char *attr, size_t attr_len, const char *rules, size_t rules_len) {
    int ruleset = (int)syscall(444 /* landlock_create_ruleset */, attr, attr_len, 0);
    if (ruleset < 0) return -1;
    size_t at = 0;
    while (at + 8 < rules_len) {
        uint64_t rights;
        memcpy(&rights, rules + at, 8);
        const char *path = rules + at + 8;
        size_t length = strnlen(path, rules_len - at - 8);
        at += 8 + length + 1;
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) goto failed;
        struct __attribute__((packed)) {
            uint64_t allowed;
            int32_t parent_fd;
        } rule = {rights & ~KEEP_OPEN, fd};
        long added = syscall(445 /* landlock_add_rule */, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0);
        int add_errno = errno;
        if (!(rights & KEEP_OPEN)) close(fd);
        errno = add_errno;
        if (added < 0) goto failed;
    }
    if (syscall(446 /* landlock_restrict_self */, ruleset, 0) < 0) goto failed;
    close(ruleset);
    return 0;
failed:;
    int failed_errno = errno;
    close(ruleset);
    errno = failed_errno;
    return -1;
}

/* Clear the effective, permitted and inheritable capability sets (and so the ambient one). */
static int clear_capabilities(void) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &header, data);
}

/* The first of prepare's steps that fails, or NULL; errno says why. */
static const char *confine(long long uid, const struct sock_fprog *program, const char *name, const Py_buffer *attr,
                           const Py_buffer *rules, int new_ipc, pid_t *keeper) {
    if (prctl(PR_SET_NAME, "codegym-keeper", 0, 0, 0) < 0) return "prctl(PR_SET_NAME)"; /* the keeper's */
    /* An IPC namespace of our own, while we hold CAP_SYS_ADMIN; where no setuid below drops
     * it (a nested user's fork server kept it for this), give it up now. */
    if (new_ipc && unshare(CLONE_NEWIPC) < 0) return "unshare(CLONE_NEWIPC)";
    if (new_ipc && uid < 0 && clear_capabilities() < 0) return "capset";
    if (setsid() < 0) return "setsid";
    /* Our /proc files are root's while we are not dumpable (as forked from the fork server),
     * which a plain user's worker is not. */
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) return "prctl(PR_SET_DUMPABLE)";
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom < 0) return "open /proc/self/oom_score_adj";
    ssize_t written = write(oom, "1000", 4); /* the OOM killer's first pick */
    int write_errno = errno;
    close(oom);
    errno = write_errno;
    if (written < 0 && errno != EACCES && errno != EPERM) return "write /proc/self/oom_score_adj";
    if (uid >= 0 && (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0))
        return "setgroups, setgid, setuid";
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) return "prctl(PR_SET_DUMPABLE)"; /* setuid reset it */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program, 0, 0) < 0) return "seccomp";
    if (attr->len > 0 && step_landlock(attr->buf, (size_t)attr->len, rules->buf, (size_t)rules->len) < 0)
        return "Landlock (the step's own layer)";
    *keeper = spawn_keeper();
    if (*keeper < 0) return "clone(CLONE_VM)";
    if (prctl(PR_SET_NAME, name, 0, 0, 0) < 0) return "prctl(PR_SET_NAME)";
    return NULL;
}

static PyObject *prepare(PyObject *module, PyObject *args) {
    long long uid;
    Py_buffer filter, attr, rules;
    const char *name;
    int new_ipc;
    (void)module;
    if (!PyArg_ParseTuple(args, "Ly*yy*y*p:prepare", &uid, &filter, &name, &attr, &rules, &new_ipc)) return NULL;
    struct sock_fprog program = {(unsigned short)(filter.len / sizeof(struct sock_filter)), filter.buf};
    pid_t keeper = -1;
    const char *failed = confine(uid, &program, name, &attr, &rules, new_ipc, &keeper);
    int failed_errno = errno;
    PyBuffer_Release(&filter);
    PyBuffer_Release(&attr);
    PyBuffer_Release(&rules);
    if (failed != NULL) return PyErr_Format(PyExc_OSError, "%s: %s", failed, strerror(failed_errno));
    return PyLong_FromLong(keeper);
}

/* In a step's process: report why it cannot be confined on its setup pipe, and end. */
static _Noreturn void refuse(int setup, const char *what) {
    dprintf(setup, "the step's process could not be confined: %s: %s", what, strerror(errno));
    _exit(127);
}

static PyObject *attach(PyObject *module, PyObject *args) {
    int sock, keeper;
    (void)module;
    if (!PyArg_ParseTuple(args, "ii:attach", &sock, &keeper)) return NULL;
    static char data[MAX_REQUEST];
    int fds[MAX_FDS], nfds;
    ssize_t len = recv_fds(sock, data, sizeof data, fds, &nfds);
    if (len == 1 && nfds == 0 && data[0] == WARM) Py_RETURN_NONE; /* a request has descriptors */
    if (len <= 0 || nfds < 4) _exit(126); /* not wanted after all */
    close(sock);
    int setup = fds[3];
    if (prctl(PR_SET_NAME, "codegym-step", 0, 0, 0) < 0) refuse(setup, "prctl(PR_SET_NAME)");
    int high = fcntl(setup, F_DUPFD_CLOEXEC, HIGH_FD);
    if (high < 0) refuse(setup, "fcntl(F_DUPFD_CLOEXEC)");
    close(setup);
    setup = high;
    /* stdin, stdout, stderr, then the channel's two ends if it has one, on 0, 1, 2, 3, 4 */
    int wired[] = {fds[0], fds[1], fds[2], fds[4], fds[5]};
    int count = nfds > 4 ? 5 : 3;
    for (int target = 0; target < count; target++)
        if (dup2(wired[target], target) < 0) refuse(setup, "dup2");
    if (setup > count && syscall(SYS_close_range, count, setup - 1, 0) < 0) refuse(setup, "close_range");
    if (syscall(SYS_close_range, setup + 1, ~0U, 0) < 0) refuse(setup, "close_range");
    size_t rlimits = (unsigned char)data[0];
    size_t header = 1 + rlimits * RLIMIT_SIZE;
    if ((size_t)len < header) {
        errno = EPROTO;
        refuse(setup, "a request shorter than its rlimits");
    }
    for (size_t i = 0; i < rlimits; i++) {
        const char *entry = data + 1 + i * RLIMIT_SIZE;
        int32_t resource;
        uint64_t soft, hard;
        memcpy(&resource, entry, 4);
        memcpy(&soft, entry + 4, 8);
        memcpy(&hard, entry + 12, 8);
        struct rlimit limit = {(rlim_t)soft, (rlim_t)hard};
        if (setrlimit(resource, &limit) < 0) refuse(setup, "setrlimit");
        if (prlimit(keeper, resource, &limit, NULL) < 0) refuse(setup, "prlimit (the keeper)");
    }
    if (chdir(work_dir) < 0) refuse(setup, "chdir");
    char confined = CONFINED;
    if (write(setup, &confined, 1) != 1) _exit(127);
    return Py_BuildValue("(y#i)", data + header, (Py_ssize_t)(len - (ssize_t)header), setup);
}

static PyObject *learned_pages(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromSize_t(learned_count);
}

static PyMethodDef methods[] = {
    {"serve", serve, METH_VARARGS,
     "serve(sock, policy, pids, own_proc, signal_uid, work) -> (fd, policy): run the fork server's loop on `sock`; returns only in a spare."},
    {"prepare", prepare, METH_VARARGS,
     "prepare(uid, filter, name, attr, rules) -> keeper pid: confine a spare as _forkserver._prepare does (uid -1: "
     "keep ours; attr and rules empty: no Landlock layer of its own)."},
    {"attach", attach, METH_VARARGS,
     "attach(sock, keeper) -> (argv and env, setup fd) or None (WARM): take the step's request and confine it."},
    {"learned", learned_pages, METH_NOARGS,
     "learned() -> int: how many pages a spare copies as it is forked (in a spare: how many it copied)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_forkcore",
    .m_doc = "The fork server's loop, a spare's confinement and its head start, in C (see _forkserver.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__forkcore(void) { return PyModule_Create(&module); }
