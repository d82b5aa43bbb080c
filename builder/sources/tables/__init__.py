"""The operator's CSV tables at the source root: securities.csv (CUSIP → ticker) and corporate_actions.csv."""
