/*
 * facts_gpu.c - the GPU facts from the vendors' own libraries, loaded at
 * run time with dlopen(3), so that nothing of theirs is needed to build or
 * install slurm-extra (facts.h: facts_gpu_libs(); doc/facts.md "GPUs").
 *
 * NVML (NVIDIA's management library, libnvidia-ml.so.1, which the driver
 * installs; Slurm's gpu/nvml plugin reads the same) and ROCm SMI (AMD's,
 * librocm_smi64.so.1; Slurm's gpu/rsmi).  Only the few functions used
 * here are declared, with the types and values of the vendors' published
 * headers (nvml.h, rocm_smi.h), whose ABI is stable: each symbol is
 * looked up by the versioned name the headers map to.
 */
#define _GNU_SOURCE /* pipe2, secure_getenv */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "facts_json.h"

/* What every GPU of the node has in common, or its first one's. */
struct gpus {
	int count;	 /* GPUs read */
	int listed;	 /* GPUs the library lists (-1: as read) */
	char name[96];	 /* the first GPU's name */
	bool mixed;	 /* not all of the same name */
	uint64_t mem_mb; /* the smallest memory, MiB */
	char driver[80]; /* the driver's version */
	int cc_major;	 /* compute capability (NVIDIA), -1: none */
	int cc_minor;
};

/* Adds one GPU of `name` and `mem_mb` to `g`. */
static void add_gpu(struct gpus *g, const char *name, uint64_t mem_mb)
{
	if (g->count == 0) {
		snprintf(g->name, sizeof(g->name), "%s", name);
		g->mem_mb = mem_mb;
	} else {
		g->mixed |= strcmp(g->name, name) != 0;
		if (mem_mb < g->mem_mb)
			g->mem_mb = mem_mb;
	}
	g->count++;
}

/* The facts of `g`, found by `source`. */
static int put_gpus(struct facts *f, const struct gpus *g, const char *vendor,
		    const char *source)
{
	char *model = NULL, *name = NULL, cc[32];
	int rc = -1;

	if (facts_put(f, "gpu_count",
		      json_object_new_int(g->listed > g->count ? g->listed
							       : g->count),
		      source))
		return -1;
	if (g->count == 0)
		return 0;
	if (!(model = g->mixed ? strdup("mixed") : facts_gpu_model(g->name)) ||
	    !(name = g->mixed ? strdup("mixed") : facts_value_text(g->name)))
		goto out;
	if (facts_put(f, "gpu_vendor", json_object_new_string(vendor),
		      source) ||
	    (*model && facts_put(f, "gpu_model", json_object_new_string(model),
				 source)) ||
	    (*name &&
	     facts_put(f, "gpu_name", json_object_new_string(name), source)) ||
	    facts_put(f, "gpu_mem_mb",
		      json_object_new_int64((int64_t)g->mem_mb), source))
		goto out;
	free(name);
	if (g->driver[0] &&
	    (!(name = facts_value_text(g->driver)) ||
	     (*name && facts_put(f, "gpu_driver", json_object_new_string(name),
				 source))))
		goto out;
	if (!g->mixed && g->cc_major >= 0) {
		snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
		if (facts_put(f, "gpu_cc", facts_real(atof(cc), cc), source))
			goto out;
	}
	rc = 0;
out:
	free(model);
	free(name);
	return rc;
}

/* ---------------------------------------------------------------- NVML */

typedef int nvml_return_t; /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef void *nvml_device_t;
struct nvml_memory { /* nvmlMemory_t */
	unsigned long long total, free, used;
};

/* NVIDIA's GPUs through NVML: 1 when it answered (g filled), 0 when not
 * (`why` says why). */
static int read_nvml(struct gpus *g, char *why, size_t size)
{
	const char *path = secure_getenv("SLURM_EXTRA_NVML");
	nvml_return_t (*init)(void), (*shutdown)(void);
	nvml_return_t (*count)(unsigned *);
	nvml_return_t (*handle)(unsigned, nvml_device_t *);
	nvml_return_t (*name)(nvml_device_t, char *, unsigned);
	nvml_return_t (*mem)(nvml_device_t, struct nvml_memory *);
	nvml_return_t (*driver)(char *, unsigned);
	nvml_return_t (*cc)(nvml_device_t, int *, int *);
	void *lib = dlopen(path ? path : "libnvidia-ml.so.1", RTLD_NOW);
	unsigned n = 0;
	int rc = 0;

	if (!lib) {
		snprintf(why, size, "NVML: %s", dlerror());
		return 0;
	}
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&shutdown = dlsym(lib, "nvmlShutdown");
	*(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&name = dlsym(lib, "nvmlDeviceGetName");
	*(void **)&mem = dlsym(lib, "nvmlDeviceGetMemoryInfo");
	*(void **)&driver = dlsym(lib, "nvmlSystemGetDriverVersion");
	*(void **)&cc = dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
	if (!init || !shutdown || !count || !handle || !name || !mem) {
		snprintf(why, size, "NVML: a function is missing from %s",
			 path ? path : "libnvidia-ml.so.1");
		goto out;
	}
	if (init() != 0) {
		snprintf(why, size,
			 "NVML: nvmlInit failed (no NVIDIA driver?)");
		goto out;
	}
	if (count(&n) != 0) {
		snprintf(why, size, "NVML: cannot count the GPUs");
		goto down;
	}
	g->cc_major = -1;
	for (unsigned i = 0; i < n && i < 64; i++) {
		nvml_device_t d;
		struct nvml_memory m = { 0, 0, 0 };
		char text[96] = "";
		int ma, mi;

		if (handle(i, &d) != 0 || name(d, text, sizeof(text)) != 0 ||
		    mem(d, &m) != 0)
			continue;
		text[sizeof(text) - 1] = '\0';
		if (g->count == 0 && cc && cc(d, &ma, &mi) == 0) {
			g->cc_major = ma;
			g->cc_minor = mi;
		}
		add_gpu(g, text, m.total >> 20);
	}
	/* the library's count, also of GPUs it could not read */
	g->listed = (int)n;
	if (driver && driver(g->driver, sizeof(g->driver)) != 0)
		g->driver[0] = '\0';
	g->driver[sizeof(g->driver) - 1] = '\0';
	rc = 1;
down:
	shutdown();
out:
	dlclose(lib);
	return rc;
}

/* ------------------------------------------------------------ ROCm SMI */

typedef int rsmi_status_t; /* 0 is RSMI_STATUS_SUCCESS */
#define RSMI_MEM_TYPE_VRAM 0
#define RSMI_SW_COMP_DRIVER 0

/* AMD's GPUs through ROCm SMI: as read_nvml(). */
static int read_rsmi(struct gpus *g, char *why, size_t size)
{
	const char *path = secure_getenv("SLURM_EXTRA_ROCM_SMI");
	rsmi_status_t (*init)(uint64_t), (*shutdown)(void);
	rsmi_status_t (*count)(uint32_t *);
	rsmi_status_t (*name)(uint32_t, char *, size_t);
	rsmi_status_t (*mem)(uint32_t, int, uint64_t *);
	rsmi_status_t (*version)(int, char *, uint32_t);
	void *lib = dlopen(path ? path : "librocm_smi64.so.1", RTLD_NOW);
	uint32_t n = 0;
	int rc = 0;

	if (!lib) {
		snprintf(why, size, "ROCm SMI: %s", dlerror());
		return 0;
	}
	*(void **)&init = dlsym(lib, "rsmi_init");
	*(void **)&shutdown = dlsym(lib, "rsmi_shut_down");
	*(void **)&count = dlsym(lib, "rsmi_num_monitor_devices");
	*(void **)&name = dlsym(lib, "rsmi_dev_name_get");
	*(void **)&mem = dlsym(lib, "rsmi_dev_memory_total_get");
	*(void **)&version = dlsym(lib, "rsmi_version_str_get");
	if (!init || !shutdown || !count || !name || !mem) {
		snprintf(why, size, "ROCm SMI: a function is missing from %s",
			 path ? path : "librocm_smi64.so.1");
		goto out;
	}
	if (init(0) != 0) {
		snprintf(why, size,
			 "ROCm SMI: rsmi_init failed (no amdgpu driver?)");
		goto out;
	}
	if (count(&n) != 0 || n == 0) {
		/* a ROCm install without an AMD GPU: let PCI say */
		snprintf(why, size, "ROCm SMI: no GPU");
		goto down;
	}
	g->cc_major = -1;
	for (uint32_t i = 0; i < n && i < 64; i++) {
		char text[96] = "";
		uint64_t bytes = 0;

		if (name(i, text, sizeof(text)) != 0 ||
		    mem(i, RSMI_MEM_TYPE_VRAM, &bytes) != 0)
			continue;
		text[sizeof(text) - 1] = '\0';
		add_gpu(g, text, bytes >> 20);
	}
	if (version &&
	    version(RSMI_SW_COMP_DRIVER, g->driver, sizeof(g->driver)) != 0)
		g->driver[0] = '\0';
	g->driver[sizeof(g->driver) - 1] = '\0';
	rc = 1;
down:
	shutdown();
out:
	dlclose(lib);
	return rc;
}

/* The vendors' libraries print on stdout and stderr as they please (ROCm
 * SMI without a GPU: "Exception caught: rsmi_init."): while they run,
 * both go to /dev/null, so that stdout holds the facts alone; what went
 * wrong is said by the note.  mute() returns the saved descriptors. */
static void mute(int saved[2])
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stdout);
	fflush(stderr);
	saved[0] = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	saved[1] = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (null >= 0 && saved[0] >= 0 && saved[1] >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	if (null >= 0)
		close(null);
}

static void unmute(const int saved[2])
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++)
		if (saved[i] >= 0) {
			dup2(saved[i], i ? STDERR_FILENO : STDOUT_FILENO);
			close(saved[i]);
		}
}

int facts_gpu_libs(struct facts *f, char *warn)
{
	struct gpus g;
	char why[2][FACTS_ERR_SIZE / 2 - 2] = { "", "" };
	const char *vendor = NULL, *source = NULL;
	int saved[2];

	memset(&g, 0, sizeof(g));
	mute(saved);
	if (read_nvml(&g, why[0], sizeof(why[0])) == 1) {
		vendor = "nvidia";
		source = "NVML (libnvidia-ml.so.1)";
	} else {
		memset(&g, 0, sizeof(g));
		if (read_rsmi(&g, why[1], sizeof(why[1])) == 1) {
			vendor = "amd";
			source = "ROCm SMI (librocm_smi64.so.1)";
		}
	}
	unmute(saved);
	if (vendor) {
		char text[300];
		const char *path = secure_getenv(
			strcmp(vendor, "nvidia") == 0 ? "SLURM_EXTRA_NVML"
						      : "SLURM_EXTRA_ROCM_SMI");

		if (path)
			snprintf(text, sizeof(text), "%.20s (%.250s)",
				 strcmp(vendor, "nvidia") == 0 ? "NVML"
							       : "ROCm SMI",
				 path);
		return put_gpus(f, &g, vendor, path ? text : source) ? -1 : 1;
	}
	if (warn)
		snprintf(warn, FACTS_ERR_SIZE, "%s; %s", why[0], why[1]);
	return 0;
}

/* The child's side of facts_gpu_bounded(): the facts of facts_gpu_libs()
 * as {"rc": N, "note": "...", "values": {...}, "sources": {...}} on `out`. */
static void gpu_child(int out)
{
	struct facts g;
	char note[FACTS_ERR_SIZE] = "";
	json_object *o = json_object_new_object();
	const char *t;
	int rc = -1;
	size_t len, done = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (o && facts_init(&g) == 0) {
		rc = facts_gpu_libs(&g, note);
		json_object_object_add(o, "values", g.values);
		json_object_object_add(o, "sources", g.sources);
	}
	if (!o || json_object_object_add(o, "rc", json_object_new_int(rc)) ||
	    json_object_object_add(o, "note", json_object_new_string(note)) ||
	    !(t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN))) {
		json_object_put(o);
		_exit(1);
	}
	len = strlen(t);
	while (done < len) {
		ssize_t w = write(out, t + done, len - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	json_object_put(o); /* (for valgrind, which checks the child too) */
	_exit(done == len ? 0 : 1);
}

/* Reads the child's answer `text` into `f`: returns its rc (-1 out of
 * memory, 0 no library answered, 1 one did), `note` its note. */
static int gpu_answer(struct facts *f, const char *text, char *note)
{
	json_object *o = json_tokener_parse(text), *rc, *n, *v, *s;
	int r = 0;

	if (!o || !json_object_object_get_ex(o, "rc", &rc) ||
	    !json_object_object_get_ex(o, "values", &v) ||
	    !json_object_object_get_ex(o, "sources", &s)) {
		snprintf(note, FACTS_ERR_SIZE,
			 "the GPU libraries' reader gave no answer");
		json_object_put(o);
		return 0;
	}
	if (json_object_object_get_ex(o, "note", &n))
		snprintf(note, FACTS_ERR_SIZE, "%s", json_object_get_string(n));
	r = json_object_get_int(rc);
	if (r == 1) {
		json_object_object_foreach (v, key, val) {
			json_object *src = NULL;

			json_object_object_get_ex(s, key, &src);
			if (facts_put(f, key, facts_copy(val),
				      src ? json_object_get_string(src)
					  : "?")) {
				r = -1;
				break;
			}
		}
	}
	json_object_put(o);
	return r;
}

int facts_gpu_bounded(struct facts *f, int timeout_s, char *note)
{
	long long deadline = facts_now_ms() + (long long)timeout_s * 1000;
	char *buf = malloc(FACTS_GPU_MAX_BYTES + 1);
	struct sigaction dfl, old;
	size_t len = 0;
	int p[2], rc = 0;
	bool eof = false;
	pid_t pid;

	*note = '\0';
	if (!buf)
		return -1;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &old);
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(note, FACTS_ERR_SIZE, "GPU libraries not read: %s",
			 strerror(errno));
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		snprintf(note, FACTS_ERR_SIZE, "GPU libraries not read: %s",
			 strerror(errno));
		close(p[0]);
		close(p[1]);
		goto out;
	}
	if (pid == 0) {
		close(p[0]);
		free(buf);
		gpu_child(p[1]);
	}
	close(p[1]);
	while (!eof) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		long long left = deadline - facts_now_ms();
		ssize_t got;

		if (left <= 0 || len >= FACTS_GPU_MAX_BYTES)
			break;
		if (poll(&pf, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		got = read(p[0], buf + len, FACTS_GPU_MAX_BYTES - len);
		if (got > 0)
			len += (size_t)got;
		eof = got == 0 ||
		      (got < 0 && errno != EINTR && errno != EAGAIN);
	}
	close(p[0]);
	kill(pid, SIGKILL); /* it has written all, or ran out of time */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (!eof) {
		snprintf(
			note, FACTS_ERR_SIZE,
			"the GPU libraries did not answer within %d s (killed): GPUs counted from PCI",
			timeout_s);
		goto out;
	}
	buf[len] = '\0';
	rc = gpu_answer(f, buf, note);
out:
	sigaction(SIGCHLD, &old, NULL);
	free(buf);
	return rc;
}
