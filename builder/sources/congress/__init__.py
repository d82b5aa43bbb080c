"""Congressional periodic transaction disclosures (stock-watcher JSON) → `CongressTrade` records.

In: House and Senate files in the stock-watcher and capitol-watch shapes. Out: one `CongressFile` per file,
its trades as filed plus what each is in and who filed it, and every malformed row as a `RowIssue`.
`rows` reads the shapes row by row, `instrument` decides stock, option or bond (from the Senate's asset
type or a House description's words), `people` reduces a name's spellings to one person.
"""
