"""The algorithms the maintenance jobs apply, apart from the services that run them: how
importance fades (decay_curves), which memories may merge (merge_candidates), near
duplicates by their vectors (near_duplicates), and one run of a job at a time across worker
hosts (job_leases)."""
