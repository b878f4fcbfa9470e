// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compiler as Kbuild calls it ($(CC)) in kseries' builds. What Kconfig and the Makefiles ask the compiler about
 * itself (cc-option, as-instr, cc-can-link, --version: no input but /dev/null or stdin, no dependency file) is
 * answered from a folder of earlier answers; everything else is the compiler itself (exec). A new build folder's
 * Kconfig run asks about 90 such questions and every make about 30, each a gcc driver, cc1 and as: seconds each time.
 *
 * Environment: KSERIES_CC, the compiler command (`ccache gcc`, `clang`, `aarch64-linux-gnu-gcc`), split on blanks;
 * KSERIES_CC_PROBES, the folder of answers (unset: every call is the compiler's; read-only: it answers what it has);
 * KSERIES_CC_ID, what tells this compiler's version from another's, part of every answer's key.
 *
 * Written for kseries; compiled by it at run time (src/tools/probe-cache.ts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static char **compiler_argv(int argc, char **argv)
{
	const char *cc = getenv("KSERIES_CC");
	char *words, *w, *save = NULL;
	char **out;
	int n = 0, i;

	if (!cc || !*cc) {
		fprintf(stderr, "kbuild-cc: KSERIES_CC names no compiler\n");
		exit(127);
	}
	words = strdup(cc);
	out = calloc(strlen(cc) + argc + 2, sizeof(*out));
	if (!words || !out)
		exit(127);
	for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		out[n++] = w;
	for (i = 1; i < argc; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	return out;
}

static void run_compiler(int argc, char **argv)
{
	char **cc = compiler_argv(argc, argv);

	execvp(cc[0], cc);
	fprintf(stderr, "kbuild-cc: %s: %s\n", cc[0], strerror(errno));
	exit(127);
}

/* FNV-1a, 128 bits: the key of an answer (the questions are few and nobody chooses them against it). */
typedef unsigned __int128 u128;

static u128 fnv(u128 h, const void *data, size_t len)
{
	const u128 prime = ((u128)0x0000000001000000ULL << 64) | 0x000000000000013BULL;
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= prime;
	}
	return h;
}

static u128 fnv_str(u128 h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);
}

static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 4096;
	ssize_t r;

	*len = 0;
	*buf = malloc(cap);
	if (!*buf)
		return -1;
	while ((r = read(fd, *buf + *len, cap - *len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		*len += r;
		if (*len == cap) {
			cap *= 2;
			*buf = realloc(*buf, cap);
			if (!*buf)
				return -1;
		}
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		len -= w;
	}
	return 0;
}

static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = read_all(fd, buf, len);
	close(fd);
	return ret;
}

static int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = write_all(fd, buf, len);
	return close(fd) || ret ? -1 : 0;
}

static int copy_file(const char *from, const char *to)
{
	char *buf;
	size_t len;
	int ret;

	if (read_file(from, &buf, &len))
		return -1;
	ret = write_file(to, buf, len);
	free(buf);
	return ret;
}

/* Replay a kept answer: its stdout, stderr, output file and exit code. */
static int replay(const char *entry, const char *output)
{
	char path[PATH_MAX], *buf;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/rc", entry);
	if (read_file(path, &buf, &len))
		return -1;
	rc = atoi(buf);
	free(buf);
	snprintf(path, sizeof(path), "%s/out", entry);
	if (!read_file(path, &buf, &len)) {
		write_all(1, buf, len);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/err", entry);
	if (!read_file(path, &buf, &len)) {
		write_all(2, buf, len);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/file", entry);
	if (output && access(path, R_OK) == 0)
		copy_file(path, output);
	return rc;
}

/* A folder of an answer not kept, removed. */
static void remove_answer(const char *dir)
{
	static const char *const files[] = { "in", "out", "err", "file", "rc" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const char *probes = getenv("KSERIES_CC_PROBES");
	const char *id = getenv("KSERIES_CC_ID");
	const char *output = NULL;
	char entry[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	char *in = NULL;
	size_t in_len = 0;
	int probe = 0, from_stdin = 0, i, status, fd;
	u128 key;
	pid_t pid;
	int writable;

	if (!probes || !*probes || strlen(probes) > PATH_MAX - 64)
		run_compiler(argc, argv);
	/* A read-only folder (a sandboxed build's) still answers what it holds. */
	writable = access(probes, W_OK) == 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-o") && i + 1 < argc) {
			output = argv[++i];
			continue;
		}
		/* A dependency file (-MD, -Wp,-MMD): a real compile, whose side files make reads. */
		if (!strncmp(a, "-M", 2) || !strncmp(a, "-Wp,-M", 6))
			run_compiler(argc, argv);
		if (!strcmp(a, "-")) {
			probe = from_stdin = 1;
		} else if (!strcmp(a, "/dev/null") || !strcmp(a, "--version") || !strcmp(a, "-dumpmachine") ||
			   !strcmp(a, "-dumpversion") || !strncmp(a, "-print-", 7)) {
			probe = 1;
		}
	}
	if (!probe || (from_stdin && !writable))
		run_compiler(argc, argv);
	if (output && (!strcmp(output, "-") || !strcmp(output, "/dev/null")))
		output = NULL;
	if (from_stdin && read_all(0, &in, &in_len))
		return 127;

	/* The key: the compiler, every argument but the output file's name (try-run's is new each time), stdin. */
	key = fnv_str((u128)0x6c62272e07bb0142ULL << 64 | 0x62b821756295c58dULL, id ? id : "");
	key = fnv_str(key, getenv("KSERIES_CC"));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			key = fnv_str(key, "-o");
			i++;
			key = fnv_str(key, output ? "FILE" : argv[i]);
			continue;
		}
		key = fnv_str(key, argv[i]);
	}
	key = fnv(key, in ? in : "", in_len);
	snprintf(entry, sizeof(entry), "%s/%016llx%016llx", probes, (unsigned long long)(key >> 64), (unsigned long long)key);
	snprintf(path, sizeof(path), "%s/rc", entry);
	if (access(path, R_OK) == 0) {
		status = replay(entry, output);
		if (status >= 0)
			return status;
	}

	if (!writable)
		run_compiler(argc, argv);
	/* Not asked before: the compiler answers, into a folder of this process that becomes the entry whole. */
	snprintf(tmp, sizeof(tmp), "%s/.new-%d", probes, (int)getpid());
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return 127;
	snprintf(path, sizeof(path), "%s/in", tmp);
	if (write_file(path, in ? in : "", in_len))
		return 127;
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/in", tmp);
		fd = open(path, O_RDONLY);
		dup2(fd, 0);
		snprintf(path, sizeof(path), "%s/out", tmp);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		snprintf(path, sizeof(path), "%s/err", tmp);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		run_compiler(argc, argv);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	snprintf(path, sizeof(path), "%s/in", tmp);
	unlink(path);
	if (output) {
		snprintf(path, sizeof(path), "%s/file", tmp);
		copy_file(output, path);
	}
	snprintf(path, sizeof(path), "%s/rc", tmp);
	{
		char rc[16];
		int n = snprintf(rc, sizeof(rc), "%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));

		write_file(path, rc, n);
	}
	/* A killed compiler's answer is not kept; two writers of one key: the first rename wins. */
	if (WIFEXITED(status) && rename(tmp, entry) == 0)
		return replay(entry, NULL);
	status = replay(tmp, NULL);
	remove_answer(tmp);
	return status < 0 ? 127 : status;
}
