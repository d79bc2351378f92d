/*
 * facts_discover.c - discovering this node's facts (facts.h; doc/facts.md
 * "Discovered facts"): the topology from hwloc, as slurmd itself reads it
 * (sockets, cores, threads, NUMA nodes, huge pages, the CPU's vendor and
 * model), memory from sysconf(3) as slurmd -C reports RealMemory, the
 * architecture and kernel from uname(2), the instruction-set flags and the
 * OS (facts_cpu.c), InfiniBand ports and disks from sysfs, the scratch
 * directory's size from statvfs(3), and the GPUs from their vendors'
 * libraries (facts_gpu.c) or, without one, from hwloc's PCI devices.  A
 * few sysfs attributes are read by hand: each is one line of text.
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
#include <unistd.h>

#include <hwloc.h>

#include "facts_json.h"

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
	rc = facts_put_int(f, "gpu_count", count, dir);
	if (rc == 0 && count > 0)
		rc = facts_put_text(f, "gpu_vendor", mixed ? "mixed" : vendor,
				    dir);
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
	rc = facts_put_int(f, "hugepages_2m", (int64_t)n2m, source);
	return rc ? rc : facts_put_int(f, "hugepages_1g", (int64_t)n1g, source);
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
	    facts_put_text(f, "cpu_vendor",
			   short_vendor(v) ? short_vendor(v) : v, source) != 0)
		goto out;
	if (pkg && !hwloc_obj_get_info_by_name(pkg, "CPUVendor") &&
	    (v = hwloc_obj_get_info_by_name(pkg, "CPUImplementer")) &&
	    facts_put_text(f, "cpu_vendor",
			   short_vendor(v) ? short_vendor(v) : v, source) != 0)
		goto out;
	if (pkg && (v = hwloc_obj_get_info_by_name(pkg, "CPUModel")) &&
	    facts_put_text(f, "cpu_model", v, source) != 0)
		goto out;
	if (facts_put_int(f, "cpu_sockets",
			  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
			  source) != 0 ||
	    facts_put_int(f, "cpu_cores",
			  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
			  source) != 0 ||
	    facts_put_int(f, "cpu_threads",
			  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
			  source) != 0 ||
	    facts_put_int(f, "numa_nodes",
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
	rc = facts_put_int(f, "ib_ports", ports, dir);
	if (rc == 0 && ports > 0)
		rc = facts_put_int(f, "ib_rate_gbps", (int64_t)rate, dir);
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
	return any ? facts_put_bool(f, "local_ssd", ssd, "/sys/block") : 0;
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
	rc = facts_put_int(
		f, "scratch_gb",
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
	return facts_put_bool(f, "scratch_ssd", strcmp(buf, "0") == 0, source);
}

/* kernel_release, kernel_major, kernel_minor, of uname `u`. */
static int kernel(struct facts *f, const struct utsname *u)
{
	unsigned major_v = 0, minor_v = 0;
	int rc = facts_put_text(f, "kernel_release", u->release, "uname(2)");

	if (rc == 0 && sscanf(u->release, "%u.%u", &major_v, &minor_v) == 2) {
		rc = facts_put_int(f, "kernel_major", major_v, "uname(2)");
		if (rc == 0)
			rc = facts_put_int(f, "kernel_minor", minor_v,
					   "uname(2)");
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
	return facts_put_int(
		f, "mem_mb",
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
	if (uname(&u) == 0 &&
	    facts_put_text(f, "cpu_arch", u.machine, "uname(2)"))
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
