# bash completion for slurm-extra(1): subcommands, their options, files
# for --nodes and --jobspec, directories for facts --dir, --scratch and
# --state, pending jobs for --job.
_slurm_extra()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W 'check eval explain to-flux jobspec from-flux why prefer facts doctor --help --version' -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	--nodes | --jobspec | --dir | --scratch | --state)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--job)
		mapfile -t COMPREPLY < <(compgen -W "$(squeue -h -t PD -o %i 2>/dev/null)" -- "$cur")
		return
		;;
	--extra | --node-extra | --within | --max-length | --max-depth | --node | --timeout | --shape | -N | --node-count | -n | --ntasks | -c | --cpus-per-task | --gpus-per-task | -t | --time-limit | --env-remove | --extra-prefer | --extra-prefer-wait)
		return
		;;
	esac
	case $cmd in
	check) opts='--extra-prefer --extra-prefer-wait --json --max-length --max-depth' ;;
	eval) opts='--node-extra --extra --nodes --slurm --within --batch --json --verbose --max-length --max-depth' ;;
	explain) opts='--node-extra --extra --json --max-length --max-depth' ;;
	to-flux) opts='--resolve --nodes --slurm --within --jobspec --extra-prefer --extra-prefer-wait --verbose --max-length --max-depth' ;;
	jobspec) opts='--shape --node-count --ntasks --cpus-per-task --gpus-per-task --exclusive --extra --extra-prefer --extra-prefer-wait --resolve --nodes --slurm --within --time-limit --any-shape --env-remove --verbose --max-length --max-depth' ;;
	from-flux) opts='--max-length --max-depth' ;;
	why) opts='--nodes --slurm --within --job --extra-prefer --extra-prefer-wait --json --max-length --max-depth' ;;
	prefer) opts='--job --extra-prefer --extra-prefer-wait --none --max-length --max-depth' ;;
	facts) opts='--publish --node --dir --timeout --scratch --state --verbose' ;;
	*) return ;;
	esac
	[[ $cur == -* ]] && mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
}
complete -F _slurm_extra slurm-extra
