from django.apps import AppConfig


class DeweeConfig(AppConfig):
    name = "dewee"
    verbose_name = "Dewee"

    def ready(self) -> None:
        from django.core import checks
        from django_q.signals import post_execute

        from dewee.metrics import job_finished
        from dewee.security import check_secure_deployment
        from dewee.serving import check_connection_budget

        checks.register(check_connection_budget)
        checks.register(check_secure_deployment, checks.Tags.security, deploy=True)
        # Each finished background job, timed by kind (sent in the cluster's monitor).
        post_execute.connect(job_finished, dispatch_uid="dewee.metrics.job_finished")
