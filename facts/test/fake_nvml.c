/*
 * fake_nvml.c - a stand-in for NVIDIA's libnvidia-ml.so.1 on a machine
 * without an NVIDIA GPU, for facts/test/test_facts.c: the few NVML functions
 * slurm-extra facts calls (facts/facts_gpu.c), with the signatures of
 * NVML's nvml.h, answering for two GPUs.  FAKE_NVML_MIXED=1 makes the
 * second one another model; FAKE_NVML_FAIL=1 makes nvmlInit_v2 fail, as
 * without a driver; FAKE_NVML_HANG=1 makes it hang for 60 s;
 * FAKE_NVML_BROKEN=1 makes the second one unreadable.  It stands in for a vendor's library, not for Slurm.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct nvml_memory {
	unsigned long long total, free, used;
};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d);
int nvmlDeviceGetName(void *d, char *name, unsigned size);
int nvmlDeviceGetMemoryInfo(void *d, struct nvml_memory *m);
int nvmlSystemGetDriverVersion(char *v, unsigned size);
int nvmlDeviceGetCudaComputeCapability(void *d, int *major, int *minor);

static int devices[2];

int nvmlInit_v2(void)
{
	const char *fail = getenv("FAKE_NVML_FAIL");
	const char *hang = getenv("FAKE_NVML_HANG");

	if (hang && *hang == '1') /* a GPU fallen off the bus */
		sleep(60);
	return fail && *fail == '1' ? 9 /* NVML_ERROR_DRIVER_NOT_LOADED */ : 0;
}

int nvmlShutdown(void)
{
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = 2;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d)
{
	if (i > 1)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*d = &devices[i];
	return 0;
}

int nvmlDeviceGetName(void *d, char *name, unsigned size)
{
	const char *mixed = getenv("FAKE_NVML_MIXED");
	const char *broken = getenv("FAKE_NVML_BROKEN");

	if (d == &devices[1] && broken && *broken == '1')
		return 15; /* NVML_ERROR_GPU_IS_LOST */
	const char *n = d == &devices[1] && mixed && *mixed == '1'
				? "NVIDIA A100-SXM4-80GB"
				: "NVIDIA H100 80GB HBM3";

	if (strlen(n) >= size)
		return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
	strcpy(name, n);
	return 0;
}

int nvmlDeviceGetMemoryInfo(void *d, struct nvml_memory *m)
{
	/* 81559 MiB, and the second one 81920 MiB */
	m->total = d == &devices[0] ? 85520809984ull : 85899345920ull;
	m->free = m->total;
	m->used = 0;
	return 0;
}

int nvmlSystemGetDriverVersion(char *v, unsigned size)
{
	if (size < 10)
		return 7;
	strcpy(v, "550.54.15");
	return 0;
}

int nvmlDeviceGetCudaComputeCapability(void *d, int *major, int *minor)
{
	(void)d;
	*major = 9;
	*minor = 0;
	return 0;
}
