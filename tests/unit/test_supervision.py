"""The supervisord configuration `make run` writes: what it supervises and how it restarts it."""
import configparser
import stat

from bootstrap.config import Settings
from bootstrap.run import GUNICORN_CONF, supervisord_conf, write_private


def parsed(tmp_path, **env) -> configparser.RawConfigParser:
    text, _ = supervisord_conf(Settings.from_env({"DATA_DIR": str(tmp_path), "WORKERS": "3", **env}))
    config = configparser.RawConfigParser()
    config.read_string(text)
    return config


def test_without_redis_url_the_embedded_redis_is_supervised_first_on_a_fixed_port_and_aof_dir(tmp_path):
    config = parsed(tmp_path, EMBEDDED_REDIS_PORT="6390", REDIS_APPENDFSYNC="always")
    redis = config["program:redis"]
    assert f"--port 6390 --bind 127.0.0.1 --dir {tmp_path}/redis" in redis["command"]
    assert "--appendfsync always" in redis["command"]
    assert int(redis["priority"]) < min(int(config[f"program:{p}"]["priority"]) for p in ("web", "worker", "scheduler"))
    assert 'REDIS_URL="redis://127.0.0.1:6390/0"' in config["supervisord"]["environment"]


def test_with_redis_url_only_the_api_the_workers_and_the_scheduler_are_supervised(tmp_path):
    config = parsed(tmp_path, REDIS_URL="redis://:secret@127.0.0.1:7000/0")
    assert "REDIS_URL" not in config["supervisord"]["environment"]  # inherited, and no password in the file
    assert [s for s in config.sections() if s.startswith("program:")] == \
        ["program:web", "program:worker", "program:scheduler"]
    assert config["program:worker"]["numprocs"] == "3"
    assert f"-c {GUNICORN_CONF} bootstrap.wsgi:app" in config["program:web"]["command"]


def test_every_program_is_restarted_with_its_whole_process_group_stopped_and_its_own_log(tmp_path):
    config = parsed(tmp_path)
    for section in (s for s in config.sections() if s.startswith("program:")):
        program = config[section]
        assert program["autorestart"] == "true" and int(program["startretries"]) >= 10
        assert program["stopasgroup"] == program["killasgroup"] == "true"
        assert program["stdout_logfile"].startswith(f"{tmp_path}/logs/")


def test_every_process_writes_its_figures_to_one_metrics_dir_emptied_of_the_last_runs(tmp_path):
    leftover = tmp_path / "metrics" / "counter_4242.db"
    leftover.parent.mkdir()
    leftover.write_bytes(b"a previous run's counters")
    config = parsed(tmp_path)
    assert f'PROMETHEUS_MULTIPROC_DIR="{tmp_path}/metrics"' in config["supervisord"]["environment"]
    assert (tmp_path / "metrics").is_dir() and not leftover.exists()


def test_the_control_socket_asks_for_a_password_that_supervisorctl_reads_from_the_same_file(tmp_path):
    config = parsed(tmp_path)
    server, control = config["unix_http_server"], config["supervisorctl"]
    assert server["username"] == control["username"] and server["password"] == control["password"]
    assert len(server["password"]) >= 32 and server["password"] != parsed(tmp_path)["unix_http_server"]["password"]


def test_the_configuration_holding_that_password_is_readable_by_its_user_only(tmp_path):
    conf = tmp_path / "supervisord.conf"
    conf.write_text("a previous run's")
    conf.chmod(0o644)
    write_private(conf, "[supervisord]\n")
    assert conf.read_text() == "[supervisord]\n" and stat.S_IMODE(conf.stat().st_mode) == 0o600
