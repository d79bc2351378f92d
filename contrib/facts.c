/*
 * facts.c - discovering this node's facts (facts.h; doc/facts.md
 * "Discovered facts"): the topology from hwloc, as slurmd itself reads it
 * (sockets, cores, threads, NUMA nodes, huge pages, the CPU's vendor and
 * model), memory from sysconf(3) as slurmd -C reports RealMemory, the
 * architecture and kernel from uname(2), the instruction-set flags from
 * /proc/cpuinfo, the OS from os-release, InfiniBand ports and disks from
 * sysfs, the scratch directory's size from statvfs(3), and the GPUs from
 * their vendors' libraries (facts_gpu.c) or, without one, from hwloc's PCI
 * devices.
 *
 * Hand-read files: /proc/cpuinfo's flags line, os-release and a few sysfs
 * attributes have no library on a Debian or RHEL node that reads them
 * (hwloc does not report flags; systemd's sd-bus has no os-release
 * reader), and each is one line of text: a general-purpose parser would be
 * larger than the reading.
 */
#define _GNU_SOURCE /* strcasestr */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "facts_json.h"

/* ------------------------------------------------------------ the set */

int facts_init(struct facts *f)
{
	f->site_keys = NULL;
	f->values = json_object_new_object();
	f->sources = json_object_new_object();
	if (!f->values || !f->sources) {
		facts_fini(f);
		return -1;
	}
	return 0;
}

void facts_fini(struct facts *f)
{
	json_object_put(f->values);
	json_object_put(f->sources);
	json_object_put(f->site_keys);
	f->values = f->sources = f->site_keys = NULL;
}

int facts_put(struct facts *f, const char *key, json_object *v,
	      const char *source)
{
	json_object *s;

	if (!v)
		return -1;
	if (json_object_object_add(f->values, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	if (!(s = json_object_new_string(source)) ||
	    json_object_object_add(f->sources, key, s) != 0) {
		json_object_put(s);
		return -1;
	}
	return 0;
}

long long facts_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

json_object *facts_copy(json_object *v)
{
	json_object *c = NULL;

	return json_object_deep_copy(v, &c, NULL) == 0 ? c : NULL;
}

json_object *facts_real(double d, const char *text)
{
	return json_object_new_double_s(d, text);
}

/* facts_put() of a string value, taken through facts_value_text(); an
 * empty result sets nothing. */
static int put_text(struct facts *f, const char *key, const char *raw,
		    const char *source)
{
	char *t = facts_value_text(raw);
	int rc = 0;

	if (!t)
		return -1;
	if (*t)
		rc = facts_put(f, key, json_object_new_string(t), source);
	free(t);
	return rc;
}

static int put_int(struct facts *f, const char *key, int64_t n,
		   const char *source)
{
	return facts_put(f, key, json_object_new_int64(n), source);
}

static int put_bool(struct facts *f, const char *key, bool b,
		    const char *source)
{
	return facts_put(f, key, json_object_new_boolean(b), source);
}

/* ----------------------------------------------------- value texts */

/* The bytes a request cannot hold in a key or a value (doc/language.md
 * §1.1). */
static bool operator_byte(unsigned char c)
{
	return strchr("<>=!,&|()", c) != NULL && c != '\0';
}

char *facts_value_text(const char *raw)
{
	static const char *const marks[] = { "(R)", "(r)", "(TM)", "(tm)" };
	size_t n = strlen(raw);
	char *out = malloc(n + 1), *o = out;
	const char *end = strchr(raw, '@');
	bool blank = false;

	if (!out)
		return NULL;
	if (!end)
		end = raw + n;
	for (const char *p = raw; p < end;) {
		size_t k, m = sizeof(marks) / sizeof(*marks);

		for (k = 0; k < m; k++)
			if (strncmp(p, marks[k], strlen(marks[k])) == 0)
				break;
		if (k < m) {
			p += strlen(marks[k]);
			continue;
		}
		if (isspace((unsigned char)*p) || *p == '_') {
			blank = o > out;
		} else if (!operator_byte((unsigned char)*p) &&
			   !iscntrl((unsigned char)*p)) {
			if (blank)
				*o++ = '_';
			blank = false;
			*o++ = *p;
		}
		p++;
	}
	*o = '\0';
	return out;
}

char *facts_gpu_model(const char *name)
{
	static const char *const brands[] = { "NVIDIA", "Tesla",    "GeForce",
					      "Quadro", "AMD",	    "ATI",
					      "Radeon", "Instinct", "Intel",
					      "Data",	"Center",   "GPU" };
	char *t = facts_value_text(name), *out, *o;
	char *save = NULL, *w;
	bool lead = true;

	if (!t)
		return NULL;
	if (!(out = o = calloc(1, strlen(t) + 1))) {
		free(t);
		return NULL;
	}
	for (w = strtok_r(t, "_", &save); w; w = strtok_r(NULL, "_", &save)) {
		bool brand = false, digit = strpbrk(w, "0123456789") != NULL;
		size_t len;

		for (size_t k = 0; lead && k < sizeof(brands) / sizeof(*brands);
		     k++)
			brand |= strcasecmp(w, brands[k]) == 0;
		if (brand)
			continue;
		lead = false;
		len = strcspn(w, "-");
		if (o > out)
			*o++ = '_';
		memcpy(o, w, len);
		o += len;
		*o = '\0';
		if (digit)
			break;
	}
	free(t);
	if (!*out) { /* nothing but brand words: the name itself */
		free(out);
		return facts_value_text(name);
	}
	return out;
}

/* ------------------------------------------------------- CPU flags */

/* The flags people select nodes on, as the kernel names them in
 * /proc/cpuinfo (arch/x86/include/asm/cpufeatures.h, and the "Features"
 * of arch/arm64/kernel/cpuinfo.c).  Each is published true or false. */
static const char *const X86_FLAGS[] = {
	"sse4_2",      "avx",	       "avx2",	      "fma",
	"f16c",	       "bmi2",	       "aes",	      "vaes",
	"sha_ni",      "avx_vnni",     "avx512f",     "avx512cd",
	"avx512bw",    "avx512dq",     "avx512vl",    "avx512ifma",
	"avx512vbmi",  "avx512_vbmi2", "avx512_vnni", "avx512_bf16",
	"avx512_fp16", "amx_tile",     "amx_bf16",    "amx_int8",
	NULL
};
static const char *const ARM_FLAGS[] = { "asimd",   "sve",  "sve2", "sme",
					 "i8mm",    "bf16", "aes",  "sha3",
					 "atomics", NULL };

/* The x86-64 psABI's microarchitecture levels, as kernel flag names:
 * each level needs its flags and the levels below it. */
static const char *const X86_V2[] = { "cx16",	"lahf_lm", "popcnt", "sse4_1",
				      "sse4_2", "ssse3",   NULL };
static const char *const X86_V3[] = { "avx", "avx2", "bmi1",  "bmi2",  "f16c",
				      "fma", "abm",  "movbe", "xsave", NULL };
static const char *const X86_V4[] = { "avx512f",  "avx512bw", "avx512cd",
				      "avx512dq", "avx512vl", NULL };

/* Whether the blank-separated word list `list` holds `word`. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
		     p[n] == '\n'))
			return true;
	return false;
}

static bool has_all(const char *list, const char *const *words)
{
	for (; *words; words++)
		if (!has_word(list, *words))
			return false;
	return true;
}

/* The value of the first line of `text` whose name is `name` ("flags\t\t:
 * fpu vme ..."): a malloc'd copy up to the newline, or NULL (none, or out
 * of memory: *nomem says which). */
static char *cpuinfo_line(const char *text, const char *name, bool *nomem)
{
	size_t n = strlen(name);

	*nomem = false;
	for (const char *p = text; p && *p;
	     p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q = p + n;

		if (strncmp(p, name, n) != 0)
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		char *line = strndup(q, strcspn(q, "\n"));
		*nomem = !line;
		return line;
	}
	return NULL;
}

int facts_cpu_flags(struct facts *f, const char *cpuinfo, const char *arch)
{
	const char *const *list = NULL;
	const char *name = NULL;
	char *line;
	bool nomem;
	int rc = 0;

	if (strcmp(arch, "x86_64") == 0 || strcmp(arch, "i686") == 0) {
		list = X86_FLAGS;
		name = "flags";
	} else if (strcmp(arch, "aarch64") == 0) {
		list = ARM_FLAGS;
		name = "Features";
	}
	if (!list)
		return 0;
	if (!(line = cpuinfo_line(cpuinfo, name, &nomem)))
		return nomem ? -1 : 0;
	for (; *list && rc == 0; list++)
		rc = put_bool(f, *list, has_word(line, *list), "/proc/cpuinfo");
	if (rc == 0 && strcmp(arch, "x86_64") == 0) {
		int level = 1;

		if (has_all(line, X86_V2)) {
			level = 2;
			if (has_all(line, X86_V3)) {
				level = 3;
				if (has_all(line, X86_V4))
					level = 4;
			}
		}
		rc = put_int(f, "x86_64_level", level,
			     "/proc/cpuinfo (x86-64 psABI levels)");
	}
	free(line);
	return rc;
}

/* ------------------------------------------------------- os-release */

/* The value of `name` in os-release text (NAME=value, NAME="value" or
 * NAME='value'; a backslash escapes the next byte inside quotes): a
 * malloc'd copy, or NULL (absent, or out of memory: *nomem). */
static char *os_value(const char *text, const char *name, bool *nomem)
{
	size_t n = strlen(name);

	*nomem = false;
	for (const char *p = text; p && *p;
	     p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q;
		char *out, *o, quote = 0;

		if (strncmp(p, name, n) != 0 || p[n] != '=')
			continue;
		q = p + n + 1;
		if (*q == '"' || *q == '\'')
			quote = *q++;
		if (!(out = o = malloc(strcspn(q, "\n") + 1))) {
			*nomem = true;
			return NULL;
		}
		for (; *q && *q != '\n' && *q != quote; q++) {
			if (quote && *q == '\\' && q[1] && q[1] != '\n')
				q++;
			*o++ = *q;
		}
		*o = '\0';
		return out;
	}
	return NULL;
}

int facts_os_release(struct facts *f, const char *text, const char *source)
{
	bool nomem;
	char *id = os_value(text, "ID", &nomem), *ver;
	int rc = 0;

	if (nomem)
		return -1;
	if (id)
		rc = put_text(f, "os_id", id, source);
	free(id);
	if (rc != 0)
		return rc;
	ver = os_value(text, "VERSION_ID", &nomem);
	if (nomem)
		return -1;
	if (ver)
		rc = put_text(f, "os_version", ver, source);
	/* the numbers as integers: 8.10 read as one number is 8.1 */
	if (rc == 0 && ver && isdigit((unsigned char)*ver)) {
		char *end;
		long long major_v = strtoll(ver, &end, 10);

		rc = put_int(f, "os_version_major", major_v, source);
		if (rc == 0 && *end == '.' && isdigit((unsigned char)end[1]))
			rc = put_int(f, "os_version_minor",
				     strtoll(end + 1, NULL, 10), source);
	}
	free(ver);
	return rc;
}

/* ------------------------------------------------ the files it reads */

/* All of file `path`, at most 1 MiB, NUL-terminated: malloc'd, or NULL
 * (unreadable: errno; or out of memory). */
static char *read_text(const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t cap = 8192, len = 0, got;
	char *buf, *bigger;

	if (!fp)
		return NULL;
	if (!(buf = malloc(cap))) {
		fclose(fp);
		return NULL;
	}
	while ((got = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += got;
		if (len + 1 < cap)
			continue;
		if (cap >= (1u << 20) || !(bigger = realloc(buf, cap * 2)))
			break;
		buf = bigger;
		cap *= 2;
	}
	buf[len] = '\0';
	fclose(fp);
	return buf;
}

/* The first line of sysfs attribute `path` in `buf` (`size` bytes), its
 * newline removed.  Returns false when it cannot be read. */
static bool read_attr(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fgets(buf, (int)size, fp) != NULL;
	fclose(fp);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* ------------------------------------------------------------ hwloc */

/* The source text naming hwloc and its API's version, in `buf`. */
static const char *hwloc_source(char *buf, size_t size)
{
	unsigned v = hwloc_get_api_version();

	snprintf(buf, size, "hwloc (API %u.%u)", v >> 16, (v >> 8) & 0xff);
	return buf;
}

/* A short vendor name for hwloc's CPUVendor ("GenuineIntel") or Arm's
 * CPUImplementer, or NULL to keep the text as it is. */
static const char *short_vendor(const char *v)
{
	static const char *const map[][2] = {
		{ "GenuineIntel", "intel" }, { "AuthenticAMD", "amd" },
		{ "HygonGenuine", "hygon" }, { "0x41", "arm" },
		{ "0x48", "hisilicon" },     { "0x4e", "nvidia" },
		{ "0x61", "apple" },	     { "0xc0", "ampere" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (strcasecmp(v, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* PCI vendors of GPUs and accelerators, and their short names. */
static const char *pci_vendor(unsigned id)
{
	switch (id) {
	case 0x10de:
		return "nvidia";
	case 0x1002:
		return "amd";
	case 0x8086:
		return "intel";
	default:
		return NULL;
	}
}

/* Whether a PCI device of `vendor` and `class_id` is a GPU or a compute
 * accelerator: a 3D controller (0x0302), another display controller
 * (0x0380) or a processing accelerator (0x1200) of a GPU vendor, or a VGA
 * controller (0x0300) of NVIDIA or AMD (an Intel VGA controller is the
 * CPU's integrated graphics; a server's BMC display has another vendor). */
static bool pci_gpu(unsigned vendor, unsigned class_id)
{
	if (!pci_vendor(vendor))
		return false;
	if (class_id == 0x0302 || class_id == 0x0380 || class_id == 0x1200)
		return true;
	return class_id == 0x0300 && vendor != 0x8086;
}

/* The GPUs among the PCI devices of sysfs (/sys/bus/pci/devices/X/vendor
 * and class, as the kernel exports them): gpu_count, and gpu_vendor when
 * they share one (the model, memory and driver need the vendor's
 * library).  Read from sysfs rather than through hwloc's PCI component,
 * which loads libpciaccess (and loses 1 KiB to it at every load) for two
 * attributes of each device. */
static int gpu_from_pci(struct facts *f)
{
	static const char *const dir = "/sys/bus/pci/devices";
	DIR *d = opendir(dir);
	struct dirent *e;
	const char *vendor = NULL;
	bool mixed = false;
	int count = 0, rc;
	char path[1024], buf[32];

	while (d && (e = readdir(d))) {
		unsigned v, c;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/vendor", dir, e->d_name);
		if (!read_attr(path, buf, sizeof(buf)) ||
		    sscanf(buf, "%x", &v) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/class", dir, e->d_name);
		if (!read_attr(path, buf, sizeof(buf)) ||
		    sscanf(buf, "%x", &c) != 1 || !pci_gpu(v, c >> 8))
			continue;
		count++;
		if (vendor && strcmp(vendor, pci_vendor(v)) != 0)
			mixed = true;
		vendor = pci_vendor(v);
	}
	if (d)
		closedir(d);
	rc = put_int(f, "gpu_count", count, dir);
	if (rc == 0 && count > 0)
		rc = put_text(f, "gpu_vendor", mixed ? "mixed" : vendor, dir);
	return rc;
}

/* The huge pages of every NUMA node, by size: hugepages_2m and
 * hugepages_1g (pages configured; 0 when none). */
static int huge_pages(struct facts *f, hwloc_topology_t topo,
		      const char *source)
{
	uint64_t n2m = 0, n1g = 0;
	hwloc_obj_t o = NULL;
	int rc;

	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o))) {
		const struct hwloc_numanode_attr_s *a = &o->attr->numanode;

		for (unsigned i = 0; i < a->page_types_len; i++) {
			if (a->page_types[i].size == 2ull << 20)
				n2m += a->page_types[i].count;
			else if (a->page_types[i].size == 1ull << 30)
				n1g += a->page_types[i].count;
		}
	}
	rc = put_int(f, "hugepages_2m", (int64_t)n2m, source);
	return rc ? rc : put_int(f, "hugepages_1g", (int64_t)n1g, source);
}

/* The topology and the CPU's vendor and model.  (hwloc's I/O discovery
 * is left off, as by default: the PCI devices come from sysfs.) */
static int from_hwloc(struct facts *f, char *warn)
{
	hwloc_topology_t topo;
	hwloc_obj_t pkg;
	char source[64];
	const char *v;
	int rc = -1;

	hwloc_source(source, sizeof(source));
	if (hwloc_topology_init(&topo) != 0)
		return -1;
	/* the whole node, not the CPUs of the cgroup this runs in */
	hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);

	if (hwloc_topology_load(topo) != 0) {
		if (warn)
			snprintf(warn, FACTS_ERR_SIZE,
				 "hwloc cannot read the topology: %s",
				 strerror(errno));
		hwloc_topology_destroy(topo);
		return 0;
	}
	pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
	if (pkg && (v = hwloc_obj_get_info_by_name(pkg, "CPUVendor")) &&
	    put_text(f, "cpu_vendor", short_vendor(v) ? short_vendor(v) : v,
		     source) != 0)
		goto out;
	if (pkg && !hwloc_obj_get_info_by_name(pkg, "CPUVendor") &&
	    (v = hwloc_obj_get_info_by_name(pkg, "CPUImplementer")) &&
	    put_text(f, "cpu_vendor", short_vendor(v) ? short_vendor(v) : v,
		     source) != 0)
		goto out;
	if (pkg && (v = hwloc_obj_get_info_by_name(pkg, "CPUModel")) &&
	    put_text(f, "cpu_model", v, source) != 0)
		goto out;
	if (put_int(f, "cpu_sockets",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
		    source) != 0 ||
	    put_int(f, "cpu_cores",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
		    source) != 0 ||
	    put_int(f, "cpu_threads",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
		    source) != 0 ||
	    put_int(f, "numa_nodes",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
		    source) != 0 ||
	    huge_pages(f, topo, source) != 0)
		goto out;
	rc = 0;
out:
	hwloc_topology_destroy(topo);
	return rc;
}

/* --------------------------------------------------- sysfs and more */

/* InfiniBand: ib_ports (active ports whose link layer is InfiniBand; 0
 * without any) and ib_rate_gbps (the fastest one's rate, "100 Gb/sec (4X
 * EDR)" -> 100). */
static int infiniband(struct facts *f)
{
	static const char *const dir = "/sys/class/infiniband";
	DIR *d = opendir(dir), *pd;
	struct dirent *e, *pe;
	int ports = 0, rc;
	double rate = 0;
	char path[1024], buf[128];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/ports", dir, e->d_name);
		if (!(pd = opendir(path)))
			continue;
		while ((pe = readdir(pd))) {
			double r;

			if (pe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/ports/%s/state",
				 dir, e->d_name, pe->d_name);
			if (!read_attr(path, buf, sizeof(buf)) ||
			    !strstr(buf, "ACTIVE"))
				continue;
			snprintf(path, sizeof(path),
				 "%s/%s/ports/%s/link_layer", dir, e->d_name,
				 pe->d_name);
			if (read_attr(path, buf, sizeof(buf)) &&
			    strcmp(buf, "InfiniBand") != 0)
				continue;
			ports++;
			snprintf(path, sizeof(path), "%s/%s/ports/%s/rate", dir,
				 e->d_name, pe->d_name);
			if (read_attr(path, buf, sizeof(buf)) &&
			    sscanf(buf, "%lf", &r) == 1 && r > rate)
				rate = r;
		}
		closedir(pd);
	}
	if (d)
		closedir(d);
	rc = put_int(f, "ib_ports", ports, dir);
	if (rc == 0 && ports > 0)
		rc = put_int(f, "ib_rate_gbps", (int64_t)rate, dir);
	return rc;
}

/* Whether block device `name` (of /sys/block) is a local disk: not a
 * loop, RAM, zram, device-mapper, md, nbd or optical device, nor
 * removable. */
static bool local_disk(const char *name)
{
	static const char *const virt[] = { "loop", "ram", "zram", "dm-",
					    "md",   "nbd", "sr",   NULL };
	char path[512], buf[16];

	for (const char *const *v = virt; *v; v++)
		if (strncmp(name, *v, strlen(*v)) == 0)
			return false;
	snprintf(path, sizeof(path), "/sys/block/%s/removable", name);
	return !read_attr(path, buf, sizeof(buf)) || strcmp(buf, "0") == 0;
}

/* local_ssd: whether a local disk is not rotational
 * (/sys/block/X/queue/rotational). */
static int local_ssd(struct facts *f)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	bool ssd = false, any = false;
	char path[512], buf[16];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !local_disk(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational",
			 e->d_name);
		if (!read_attr(path, buf, sizeof(buf)))
			continue;
		any = true;
		ssd |= strcmp(buf, "0") == 0;
	}
	if (d)
		closedir(d);
	return any ? put_bool(f, "local_ssd", ssd, "/sys/block") : 0;
}

/* scratch_gb (the size of the file system of `dir`, GiB) and scratch_ssd
 * (whether the disk under it is not rotational: /sys/dev/block/M:m, or its
 * parent for a partition; left out for a file system without a disk, such
 * as tmpfs). */
static int scratch(struct facts *f, const char *dir)
{
	struct statvfs vfs;
	struct stat st;
	char path[512], buf[16], source[300];
	int rc;

	if (statvfs(dir, &vfs) != 0 || stat(dir, &st) != 0)
		return 0;
	snprintf(source, sizeof(source), "statvfs(3) of %s", dir);
	rc = put_int(f, "scratch_gb",
		     (int64_t)(((uint64_t)vfs.f_blocks * vfs.f_frsize) >> 30),
		     source);
	if (rc != 0 || major(st.st_dev) == 0)
		return rc;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/rotational",
		 major(st.st_dev), minor(st.st_dev));
	if (!read_attr(path, buf, sizeof(buf))) {
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/../queue/rotational",
			 major(st.st_dev), minor(st.st_dev));
		if (!read_attr(path, buf, sizeof(buf)))
			return 0;
	}
	snprintf(source, sizeof(source), "/sys/dev/block (the disk of %s)",
		 dir);
	return put_bool(f, "scratch_ssd", strcmp(buf, "0") == 0, source);
}

/* kernel_release, kernel_major, kernel_minor, of uname `u`. */
static int kernel(struct facts *f, const struct utsname *u)
{
	unsigned major_v = 0, minor_v = 0;
	int rc = put_text(f, "kernel_release", u->release, "uname(2)");

	if (rc == 0 && sscanf(u->release, "%u.%u", &major_v, &minor_v) == 2) {
		rc = put_int(f, "kernel_major", major_v, "uname(2)");
		if (rc == 0)
			rc = put_int(f, "kernel_minor", minor_v, "uname(2)");
	}
	return rc;
}

/* mem_mb: the node's memory in MiB, as slurmd -C reports RealMemory
 * (sysconf(_SC_PHYS_PAGES) pages of sysconf(_SC_PAGESIZE) bytes). */
static int memory(struct facts *f)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 0;
	return put_int(f, "mem_mb",
		       (int64_t)(((uint64_t)pages * (uint64_t)size) >> 20),
		       "sysconf(3), as slurmd -C");
}

/* os_id and os_version of `path`, or of /etc/os-release and then
 * /usr/lib/os-release (os-release(5)) when NULL. */
static int os_release(struct facts *f, const char *path)
{
	const char *used = path ? path : "/etc/os-release";
	char *text = read_text(used);
	int rc;

	if (!text && !path)
		text = read_text(used = "/usr/lib/os-release");
	if (!text)
		return 0;
	rc = facts_os_release(f, text, used);
	free(text);
	return rc;
}

int facts_discover(struct facts *f, const struct facts_env *env, char *warn)
{
	struct utsname u;
	char *text;
	int gpu = 0, rc;

	memset(&u, 0, sizeof(u));
	if (warn)
		*warn = '\0';
	if (uname(&u) == 0 && put_text(f, "cpu_arch", u.machine, "uname(2)"))
		return -1;
	if (from_hwloc(f, warn) != 0)
		return -1;
	text = env->cpuinfo ? strdup(env->cpuinfo) : read_text("/proc/cpuinfo");
	rc = text ? facts_cpu_flags(f, text, u.machine) : 0;
	free(text);
	if (rc != 0 || memory(f) != 0)
		return -1;
	if (!env->no_gpu_libs) {
		char note[FACTS_ERR_SIZE];

		gpu = facts_gpu_bounded(
			f, env->timeout_s > 0 ? env->timeout_s : 10, note);
		if (gpu < 0)
			return -1;
		if (warn && *note)
			snprintf(warn, FACTS_ERR_SIZE, "%s", note);
	}
	if ((gpu == 0 && gpu_from_pci(f) != 0) ||
	    os_release(f, env->os_release) != 0 ||
	    (u.release[0] && kernel(f, &u) != 0) || infiniband(f) != 0 ||
	    local_ssd(f) != 0 ||
	    scratch(f, env->scratch ? env->scratch : "/tmp") != 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------- ownership */

/* Every key discovery may set, besides the flags of X86_FLAGS and
 * ARM_FLAGS (doc/facts.md "Discovered facts"). */
static const char *const DISCOVERED[] = { "cpu_arch",
					  "cpu_vendor",
					  "cpu_model",
					  "cpu_sockets",
					  "cpu_cores",
					  "cpu_threads",
					  "x86_64_level",
					  "mem_mb",
					  "numa_nodes",
					  "hugepages_2m",
					  "hugepages_1g",
					  "gpu_count",
					  "gpu_vendor",
					  "gpu_model",
					  "gpu_name",
					  "gpu_mem_mb",
					  "gpu_driver",
					  "gpu_cc",
					  "os_id",
					  "os_version",
					  "os_version_major",
					  "os_version_minor",
					  "kernel_release",
					  "kernel_major",
					  "kernel_minor",
					  "ib_ports",
					  "ib_rate_gbps",
					  "local_ssd",
					  "scratch_gb",
					  "scratch_ssd",
					  NULL };

static bool in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (strcmp(*list, key) == 0)
			return true;
	return false;
}

bool facts_discovered_key(const char *key)
{
	return in_list(DISCOVERED, key) || in_list(X86_FLAGS, key) ||
	       in_list(ARM_FLAGS, key);
}

bool facts_check(const char *key, json_object *v, char *why)
{
	size_t n = strlen(key);
	const char *s;

	if (n == 0 || n > 128) {
		snprintf(why, FACTS_ERR_SIZE,
			 "key '%.40s' is %s (1 to 128 bytes)", key,
			 n ? "too long" : "empty");
		return false;
	}
	for (const char *p = key; *p; p++)
		if (operator_byte((unsigned char)*p) ||
		    iscntrl((unsigned char)*p)) {
			snprintf(why, FACTS_ERR_SIZE,
				 "key '%s' holds %s, which no request can name",
				 key,
				 iscntrl((unsigned char)*p)
					 ? "a control byte"
					 : "an operator byte");
			return false;
		}
	switch (json_object_get_type(v)) {
	case json_type_boolean:
	case json_type_int:
		return true;
	case json_type_double:
		if (isfinite(json_object_get_double(v)))
			return true;
		snprintf(why, FACTS_ERR_SIZE,
			 "the value of '%s' is not a finite number", key);
		return false;
	case json_type_string:
		s = json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
		if (n == 0 || n > 1024 || strlen(s) != n) {
			snprintf(
				why, FACTS_ERR_SIZE,
				"the value of '%s' is %s (a string of 1 to 1024 bytes, without NUL)",
				key,
				n == 0	   ? "empty"
				: n > 1024 ? "too long"
					   : "holds a NUL byte");
			return false;
		}
		for (const char *p = s; *p; p++)
			if (operator_byte((unsigned char)*p) ||
			    iscntrl((unsigned char)*p)) {
				snprintf(
					why, FACTS_ERR_SIZE,
					"the value of '%s' (\"%.60s\") holds '%s', which no request can hold in a value",
					key, s,
					iscntrl((unsigned char)*p)
						? "a control byte"
						: (char[]){ *p, 0 });
				return false;
			}
		return true;
	default:
		snprintf(
			why, FACTS_ERR_SIZE,
			"the value of '%s' is %s: a node's Extra is matched by its top-level booleans, numbers and strings only",
			key,
			json_object_is_type(v, json_type_null) ? "null"
			: json_object_is_type(v, json_type_array)
				? "an array"
				: "an object");
		return false;
	}
}

bool facts_array_has(json_object *keys, const char *key)
{
	size_t n = keys ? json_object_array_length(keys) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *k = json_object_get_string(
			json_object_array_get_idx(keys, i));

		if (k && strcmp(k, key) == 0)
			return true;
	}
	return false;
}

json_object *facts_merge(json_object *current, const struct facts *f,
			 json_object *site_keys, json_object *old_site_keys)
{
	json_object *out = json_object_new_object();

	if (!out)
		return NULL;
	if (current && json_object_is_type(current, json_type_object)) {
		json_object_object_foreach (current, key, v) {
			if (facts_discovered_key(key) ||
			    facts_array_has(site_keys, key) ||
			    facts_array_has(old_site_keys, key) ||
			    json_object_object_get_ex(f->values, key, NULL))
				continue;
			json_object *c = v ? facts_copy(v) : NULL;

			if ((v && !c) ||
			    json_object_object_add(out, key, c) != 0) {
				json_object_put(c);
				goto nomem;
			}
		}
	}
	{
		json_object_object_foreach (f->values, key, v) {
			json_object *c = facts_copy(v);

			if (!c || json_object_object_add(out, key, c) != 0) {
				json_object_put(c);
				goto nomem;
			}
		}
	}
	return out;
nomem:
	json_object_put(out);
	return NULL;
}
