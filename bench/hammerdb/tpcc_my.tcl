#!/bin/tclsh
# cairn bench/tpcc.sh: HammerDB (v4.12 CLI) TPROC-C (stored procedures) on MariaDB 10.11 or MySQL 8 via HammerDB's "mysql" driver (mysqltcl), TCP to HDB_MYSQL_HOST:HDB_MYSQL_PORT (default 127.0.0.1:3306)
# Run by bench/tpcc.sh: cd $PEERS/hammerdb && TMP=$PEERS/hammerdb/tmp TCLLIBPATH=$PEERS/hammerdb/lib tclsh8.6 hammerdbcli auto THIS.tcl
# Environment: HDB_WAREHOUSES, HDB_VU, HDB_RAMPUP, HDB_DURATION (minutes, multiples of 0.1),
# HDB_MYSQL_USER and HDB_MYSQL_PASS (default peer_hammer, which bench/tpcc.sh makes when it may)
proc envor {n d} { if {[info exists ::env($n)] && $::env($n) ne ""} { return $::env($n) } { return $d } }
set rampup   [envor HDB_RAMPUP 0]
set duration [envor HDB_DURATION 1]
set warehouses [envor HDB_WAREHOUSES 4]
set vus [envor HDB_VU 4]

dbset db mysql
dbset bm TPC-C
diset connection mysql_host [envor HDB_MYSQL_HOST 127.0.0.1]
diset connection mysql_port [envor HDB_MYSQL_PORT 3306]
diset connection mysql_socket null
diset connection mysql_ssl false
diset tpcc mysql_user [envor HDB_MYSQL_USER peer_hammer]
diset tpcc mysql_pass [envor HDB_MYSQL_PASS peer_hammer]
diset tpcc mysql_dbase peer_hammerdb
diset tpcc mysql_count_ware $warehouses
diset tpcc mysql_num_vu $warehouses
diset tpcc mysql_storage_engine innodb
diset tpcc mysql_partition false
diset tpcc mysql_no_stored_procs false
diset tpcc mysql_history_pk false

puts "HDB: SCHEMA BUILD STARTED"
set t0 [clock milliseconds]
buildschema
puts "HDB: SCHEMA BUILD COMPLETED in [format %.1f [expr {([clock milliseconds]-$t0)/1000.0}]] s"
vudestroy
# Let the server settle after the build, as bench/tpcc.sh does before every load and run.
if {[envor HDB_SETTLE ""] ne ""} { exec sh -c [envor HDB_SETTLE ""] }

diset tpcc mysql_driver timed
diset tpcc mysql_total_iterations 10000000
diset tpcc mysql_rampup $rampup
diset tpcc mysql_duration $duration
diset tpcc mysql_allwarehouse false
diset tpcc mysql_timeprofile false
diset tpcc mysql_keyandthink false
diset tpcc mysql_raiseerror false
loadscript
vuset vu $vus
vuset logtotemp 0
vuset showoutput 1
vucreate
puts "HDB: TEST STARTED (rampup $rampup min, duration $duration min, $vus VU)"
set t1 [clock milliseconds]
# v4.12 CLI keepalive only waits when rampup/duration are 0 or whole minutes >= 1;
# for fractional minutes (multiples of 0.1) vurun returns at once, so wait for the VUs here.
# (AVUC still says "complete" from the build job, so reset it before the run.)
set ::AVUC idle
set jobid [ vurun ]
while {![vucomplete]} { after 1000 {set ::hdb_tick 1}; vwait ::hdb_tick }
puts "HDB: TEST COMPLETE in [format %.1f [expr {([clock milliseconds]-$t1)/1000.0}]] s ($jobid)"
vudestroy

if {1} {
  puts "HDB: DELETING SCHEMA"
  deleteschema
}
puts "HDB: DONE"
exit
