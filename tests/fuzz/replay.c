/*
 * replay.c - the main() of a fuzz target in ordinary builds: runs the
 * target's seeds (the unit tests' inputs) and every file of
 * $XC_FUZZ_CORPUS/<target>/ (inputs found by fuzzing, kept as
 * regressions) through it, as a plain test of `make check`.
 *
 *   replay_<target>                       the seeds and the corpus
 *   replay_<target> FILE...               those files
 *   replay_<target> --write-seeds DIR     write the seeds into DIR, to
 *                                         start a libFuzzer run
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t replayed;

static void run(const void *data, size_t len, void *ctx)
{
	(void)ctx;
	LLVMFuzzerTestOneInput(data, len);
	replayed++;
}

static void write_seed(const void *data, size_t len, void *ctx)
{
	const char *dir = ctx;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%04zu", dir, replayed++);
	if (!(f = fopen(path, "wb")) || fwrite(data, 1, len, f) != len) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	fclose(f);
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	fclose(f);
	run(buf, (size_t)len, NULL);
	free(buf);
	return 0;
}

static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char path[4096];
	int rc = 0;

	if (!d)
		return 0; /* no corpus yet */
	while ((ent = readdir(d))) {
		struct stat st;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     ent->d_name) >= sizeof(path))
			continue;
		if (ent->d_name[0] == '.' || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (run_file(path) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	const char *corpus = getenv("XC_FUZZ_CORPUS");
	char dir[4096];
	int rc = 0;

	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) {
		mkdir(argv[2], 0755);
		fuzz_seeds(write_seed, argv[2]);
		printf("%s: %zu seeds written to %s\n", FUZZ_TARGET, replayed,
		       argv[2]);
		return 0;
	}
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (run_file(argv[i]) < 0)
				rc = 1;
	} else {
		fuzz_seeds(run, NULL);
		if (corpus) {
			snprintf(dir, sizeof(dir), "%s/%s", corpus,
				 FUZZ_TARGET);
			if (run_dir(dir) < 0)
				rc = 1;
		}
	}
	printf("%s: %zu inputs replayed, no property failed\n", FUZZ_TARGET,
	       replayed);
	return rc;
}
