"""What the store keeps, and the store: tables' records, profiles, history, statistics,
ratings, replays' rounds, the score keeper's sheets."""
